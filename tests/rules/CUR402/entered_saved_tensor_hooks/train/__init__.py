"""A captured step that enters context managers pushing saved-tensor hooks."""
