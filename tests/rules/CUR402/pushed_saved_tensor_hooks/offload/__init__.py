"""Activation offloading whose saved-tensor hooks run in the captured layers' passes."""
