"""KernelIndex site builder: load -> validate -> link -> derive -> render -> write."""
