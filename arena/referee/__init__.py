"""The referee: drives games through a transport, checks answers, enforces deadlines."""
