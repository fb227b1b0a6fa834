"""Pure types of Mira Desktop: no Qt, no I/O, standard library only."""
