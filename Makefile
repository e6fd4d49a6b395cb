# The two set-up commands (README): `make demo` and `make test`. Both install what is missing first.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all deps build demo test fuzz clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# Compiles the embedded default example and shows what loom produced for it.
demo: build
	@bash scripts/demo.sh $(BUILD)/loom

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# libFuzzer over parse + check (.loom), then over the .tx front end (parse, fmt, check, ISL analysis,
# recognition, lowering), clang with ASan and UBSan. FUZZ_SECONDS bounds each of the two runs.
FUZZ_SECONDS ?= 600
fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DLOOM_FUZZ=ON -DLOOM_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build build-fuzz --target loom_fuzz loom_fuzz_tx -j $(JOBS)
	@bash scripts/fuzz.sh build-fuzz/loom_fuzz $(FUZZ_SECONDS)
	@FUZZ_TARGET=tx bash scripts/fuzz.sh build-fuzz/loom_fuzz_tx $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) build-fuzz
