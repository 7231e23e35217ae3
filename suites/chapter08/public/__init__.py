"""Chapter 8 public tests (a package so their module names differ from the hidden ones)."""
