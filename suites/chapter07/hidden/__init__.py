"""Chapter 7 hidden tests (a package so their module names differ from the public ones)."""
