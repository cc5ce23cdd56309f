/* The custom mutator and crossover for a preloaded libFuzzer (fuzz/README.md,
 * "Structure-aware mutation").
 *
 * libFuzzer looks for LLVMFuzzerCustomMutator and LLVMFuzzerCustomCrossOver as weak
 * symbols, bound when its library is loaded. Built into atheris (a plain campaign) it
 * finds atheris's; preloaded (LD_PRELOAD=asan_with_fuzzer.so, as OSS-Fuzz's
 * compile_python_fuzzer wrapper runs an address build, and as the native campaign runs)
 * it is bound before Python starts, when atheris's modules are not loaded, so it finds
 * none and mutates byte by byte only (google/atheris#54). Preloaded beside it, this
 * library defines both; fuzz/_harness.py hands it atheris's own functions
 * (fxtlint_fuzz_forward) before fuzzing starts. Until then, or for an input format
 * without a custom mutator, it mutates as libFuzzer would (LLVMFuzzerMutate) and
 * declines to cross over. */

#include <stddef.h>
#include <stdint.h>

typedef size_t (*mutator_fn)(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
typedef size_t (*crossover_fn)(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                               uint8_t *out, size_t max_out_size, unsigned int seed);

static mutator_fn mutator;
static crossover_fn crossover;

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));

/* Called from fuzz/_harness.py (ctypes) with atheris's LLVMFuzzerCustomMutator and
 * LLVMFuzzerCustomCrossOver; returns 1 so the caller knows it reached this library. */
int fxtlint_fuzz_forward(void *mutate, void *cross) {
    mutator = (mutator_fn)mutate;
    crossover = (crossover_fn)cross;
    return 1;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    if (mutator)
        return mutator(data, size, max_size, seed);
    return LLVMFuzzerMutate ? LLVMFuzzerMutate(data, size, max_size) : size;
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed) {
    if (crossover)
        return crossover(data1, size1, data2, size2, out, max_out_size, seed);
    return 0;
}
