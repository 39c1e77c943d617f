"""Cross-method validity: one persona set through every method that takes one, and whether the methods agree about
each persona (RoleScope's own analysis; ``docs/methods/cross-method.md``)."""
