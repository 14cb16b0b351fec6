"""Test doubles shared by every test suite: a fault-injecting server and a llama.cpp server."""
