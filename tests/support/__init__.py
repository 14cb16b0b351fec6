"""Shared by every test folder: a fault-injecting server, a llama.cpp server, reference examples."""
