// An in-process NNAPI function table for the blob fuzzer (blob_fuzzer.cpp):
// the model-building and compilation functions, each reading every byte it
// is pointed at (so ASan reports a buffer shorter than the length the backend
// passes) and answering NO_ERROR; models and compilations are real heap
// objects (so LeakSanitizer reports one the backend does not free). It runs
// no model: it stands in for NNAPI only while a blob is built into a model.
#pragma once

#include <cstdint>
#include <memory>

#include "nnapi_api.h"

namespace executorch_nnapi_checks {

/// The table, claiming `feature_level`; functions it does not cover are null
/// (as in a library that does not export them).
std::shared_ptr<const executorch_nnapi::NnapiApi> checking_nnapi(int64_t feature_level);

}  // namespace executorch_nnapi_checks
