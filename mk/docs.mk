# Docs stay true (docs/README.md, "Conventions"): tests/docs/check_docs.py runs every ```sh command of
# README.md and docs/**.md (or dry-runs the ones marked "# dry-run" / "# slow", and checks that a
# named test-NAME is in TESTS), checks <!-- include: --> blocks and relative links.
#   make test-docs   also builds and runs tests/docs/host_example.c (quoted in docs/host-api.md), linked
#                    with the library's sources without the sim transport (no Verilated SoC needed)

DOCS_OUT   := $(BUILD)/docs
DOCS_FILES := README.md $(sort $(wildcard docs/*.md docs/labs/*.md))

$(DOCS_OUT)/host_example: tests/docs/host_example.c $(TSL_HOST_ALL_C) $(TSL_HOST_ALL_H) mk/docs.mk
	@mkdir -p $(@D)
	@$(CC) $(filter-out -DTESSEL_NO_SIM,$(HOST_CFLAGS)) -DTESSEL_NO_SIM $< $(TSL_HOST_ALL_C) -lm -o $@

TESTS += docs
.PHONY: test-docs
test-docs: $(DOCS_OUT)/host_example
	@$(PYTHON) tests/docs/check_docs.py "$(TESTS)" $(DOCS_FILES)
