// The fuzz targets: each takes one input and returns "" when every invariant held, else what went wrong.
// They are compiled twice: into libFuzzer executables (libfuzzer_entry.cc, built by scripts/fuzz.sh with
// clang's -fsanitize=fuzzer,address,undefined) and into the Catch2 suite, which replays the seed corpora
// and every input that once exposed a bug (regressions/) on each normal test run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace quiver_fuzz {

// QvSymbolCreateFromJSON on the bytes as JSON text, then the name lists.
std::string FuzzSymbolJson(const uint8_t* data, size_t size);

// QvNDArrayLoadFromBuffer on the bytes, then every returned array's shape and dtype.
std::string FuzzParams(const uint8_t* data, size_t size);

// The bytes are symbol JSON followed by kShapeControlBytes that size variables without a "__shape__".
// Parses, binds zero-filled parameters, infers shapes, compiles and runs one invocation.
constexpr size_t kShapeControlBytes = 8;
std::string FuzzGraphShapes(const uint8_t* data, size_t size);

// QvCreateCachedOpEx on a small fixed model with flags read as "key=value" lines (the first byte's low
// bit is thread_safe); an op created with data_shapes is invoked once with those shapes.
std::string FuzzCachedOpFlags(const uint8_t* data, size_t size);

}  // namespace quiver_fuzz
