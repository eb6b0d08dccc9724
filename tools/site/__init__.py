"""The site as the commands build, serve, time, print and look at it: ``./run build``, ``serve``, ``bench``,
``pdf``, and the browser and screenshots."""
