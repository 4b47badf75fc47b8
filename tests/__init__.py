"""runlens' tests, a package: a test imports what tests share from tests.support and a script by its full
name (scripts.<module>), never another test file or conftest (CONTRIBUTING.md, "Tests")."""
