"""The methods: one package each (see ``base.py`` for the contract every method fulfils)."""
