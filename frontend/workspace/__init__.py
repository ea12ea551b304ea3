"""The annotation workspace (TAB Steps 1-4): page, partial updates and their rendering."""
