"""The admin calls' machinery: the admin coordinator (find the group's coordinator, send, retry)
and reconcile (a scale-down plan). Internal: the public face is :mod:`staticconsumer.admin`."""
