# One source of truth: hw/spec/tessel.toml -> tsl_pkg.sv, tsl_hw.h, docs tables.
gen:
	@$(PYTHON) hw/spec/gen.py

TESTS += gen-check
test-gen-check:
	@$(PYTHON) hw/spec/gen.py --check
