"""``/admin``: the site owner's dashboard, its sign-in, sessions, throttle and pages.

Only the app's wiring imports it; the desk and the routes never do.
"""
