"""Factory Droid 0.215.0 end to end."""
