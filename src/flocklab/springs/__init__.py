"""Mass–spring chains, cloth and networks with a registry of integrators (issue 14)."""
