"""Suite-neutral building blocks: the suite interface and registry, environments, result rows."""
