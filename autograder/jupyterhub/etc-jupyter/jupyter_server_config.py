# /etc/jupyter/jupyter_server_config.py: lets the hub show formgrader in a frame.
c = get_config()  # noqa: F821 - provided by traitlets
c.ServerApp.tornado_settings = {"headers": {"Content-Security-Policy": "frame-ancestors 'self'"}}
