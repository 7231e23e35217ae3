"""Chapter 8 hidden tests (instructors only)."""
