// load_blob: the stages that read and validate the delegate blob, in order.
// The stages themselves are in the files load_stages.h lists.
#include "blob_reader.h"

#include <new>

#include "error_log.h"
#include "load_stages.h"

namespace executorch_nnapi {

using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::NamedDataMap;

// Logs "NnapiBackend: cannot load the delegate blob: <reason>".
Error reject(Error code, const std::string& reason) {
  NNAPI_LOG_ERROR("cannot load the delegate blob: %s", reason.c_str());
  return code;
}

Error load_blob(FreeableBuffer* processed, const NamedDataMap* named_data,
                std::unique_ptr<LoadedBlob>* out) {
  const uint8_t* data = nullptr;
  size_t size = 0;
  Error err = check_envelope(processed, &data, &size);
  if (err != Error::Ok) {
    return err;
  }
  std::unique_ptr<LoadedBlob> loaded(new (std::nothrow) LoadedBlob());
  if (loaded == nullptr) {
    return reject(Error::MemoryAllocationFailed, "out of memory");
  }
  err = loaded->align_data(&data, size);
  if (err == Error::Ok) {
    err = verify_blob(data, size, &loaded->root_);
  }
  // From here on the blob is well-formed; the stages check its semantics.
  if (err == Error::Ok) {
    err = loaded->load_operands(named_data);
  }
  if (err == Error::Ok) {
    err = check_operations(loaded->root_);
  }
  if (err == Error::Ok) {
    err = check_model_io(loaded->root_);
  }
  // The referenced models (IF / WHILE): the same checks, then an order to
  // build them in.
  for (uint32_t k = 0; err == Error::Ok && k < vsize(loaded->root_->subgraphs());
       ++k) {
    err = check_operations(loaded->subgraph(k));
    if (err == Error::Ok) {
      err = check_model_io(loaded->subgraph(k));
    }
  }
  if (err == Error::Ok) {
    err = loaded->order_subgraphs();
  }
  if (err == Error::Ok) {
    err = loaded->load_states(named_data);
  }
  std::vector<int> input_ranks;
  if (err == Error::Ok) {
    err = loaded->load_arguments(&input_ranks);
  }
  if (err != Error::Ok) {
    return err;
  }
  std::vector<size_t> value_counts;
  for (const ArgumentInfo& arg : loaded->inputs_) {
    value_counts.push_back(arg.value_count);
  }
  std::string error;
  if (!loaded->shape_program_.init(loaded->root_->shape_program(),
                                   input_ranks, value_counts, &error)) {
    return reject(Error::InvalidProgram, error);
  }
  loaded->find_run_time_operands();
  *out = std::move(loaded);
  return Error::Ok;
}

}  // namespace executorch_nnapi
