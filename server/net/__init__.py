"""The network side of the server: TCP/TLS listener, per-connection byte handling, the health endpoint."""
