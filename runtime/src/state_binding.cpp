// Stage 6b of load_blob: the delegate's state (Blob.states). Each state is a
// model input and a model output of one static type, bound to no argument
// (the runtime binds both to NNAPI memory it keeps, delegate_state.cpp), with
// an initial value of exactly its size or zeros.
#include <cstring>
#include <string>
#include <vector>

#include "blob_reader.h"
#include "error_log.h"
#include "load_stages.h"

namespace executorch_nnapi {

using executorch::runtime::Error;
using executorch::runtime::NamedDataMap;

namespace {

// The position of `operand` in the model input (or output) list `io`.
bool io_position(const flatbuffers::Vector<uint32_t>* io, uint32_t operand,
                 uint32_t* index) {
  for (uint32_t k = 0; k < vsize(io); ++k) {
    if (io->Get(k) == operand) {
      *index = k;
      return true;
    }
  }
  return false;
}

// The two operands have the same type, quantization and static dims.
bool same_static_type(const blob::Operand* a, const blob::Operand* b) {
  if (a->type() != b->type() || a->scale() != b->scale() ||
      a->zero_point() != b->zero_point() || vsize(a->dim_exprs()) != 0 ||
      vsize(b->dim_exprs()) != 0 || vsize(a->dims()) != vsize(b->dims())) {
    return false;
  }
  for (uint32_t d = 0; d < vsize(a->dims()); ++d) {
    if (a->dims()->Get(d) != b->dims()->Get(d) || a->dims()->Get(d) == 0) {
      return false;
    }
  }
  return true;
}

}  // namespace

Error LoadedBlob::load_states(const NamedDataMap* named_data) {
  states_.clear();
  const auto* tables = root_->states();
  for (uint32_t s = 0; s < vsize(tables); ++s) {
    const blob::State* table = tables->Get(s);
    StateInfo info;
    info.name = table->name() != nullptr ? table->name()->str()
                                         : format_message("state %u", s);
    info.input_operand = table->input();
    info.output_operand = table->output();
    if (!io_position(root_->model_inputs(), info.input_operand, &info.input_index) ||
        !io_position(root_->model_outputs(), info.output_operand,
                     &info.output_index)) {
      return reject(Error::InvalidProgram,
                    format_message("state %s: operand %u must be a model input "
                                   "and operand %u a model output",
                                   info.name.c_str(), info.input_operand,
                                   info.output_operand));
    }
    const blob::Operand* in = root_->operands()->Get(info.input_operand);
    const blob::Operand* out = root_->operands()->Get(info.output_operand);
    const OperandInfo& in_info = operands_[info.input_operand];
    if (!in_info.is_tensor || in->source() != blob::ValueSource::NONE ||
        !same_static_type(in, out) ||
        !checked_byte_size(in_info.element_size, in->dims()->data(),
                           in->dims()->size(), &info.bytes)) {
      return reject(Error::InvalidProgram,
                    format_message("state %s: %s and %s must be tensors of one "
                                   "type and static dims within NNAPI's limits",
                                   info.name.c_str(),
                                   describe_operand(info.input_operand).c_str(),
                                   describe_operand(info.output_operand).c_str()));
    }
    for (const StateInfo& other : states_) {
      if (other.input_index == info.input_index ||
          other.output_index == info.output_index) {
        return reject(Error::InvalidProgram,
                      format_message("states %s and %s share a model input or "
                                     "output",
                                     other.name.c_str(), info.name.c_str()));
      }
    }
    const Error err = load_initial_state(table, named_data, &info);
    if (err != Error::Ok) {
      return err;
    }
    states_.push_back(std::move(info));
  }
  return Error::Ok;
}

// The state's initial value: zeros without a key, else the named data of
// exactly its size (kept alive with the blob's other named data).
Error LoadedBlob::load_initial_state(const blob::State* table,
                                     const NamedDataMap* named_data,
                                     StateInfo* info) {
  if (table->named_data_key() == nullptr || table->named_data_key()->size() == 0) {
    return Error::Ok;
  }
  const std::string key = table->named_data_key()->str();
  if (named_data == nullptr) {
    return reject(Error::InvalidProgram,
                  format_message("state %s: its initial value is named data "
                                 "'%s', but the program has no named data",
                                 info->name.c_str(), key.c_str()));
  }
  auto buffer = named_data->get_data(key.c_str());
  if (!buffer.ok() || buffer->size() != info->bytes) {
    return reject(Error::InvalidProgram,
                  format_message("state %s: initial value '%s' is missing or "
                                 "not %zu bytes",
                                 info->name.c_str(), key.c_str(), info->bytes));
  }
  info->initial = buffer->data();
  named_data_.push_back(std::move(buffer.get()));
  return Error::Ok;
}

bool LoadedBlob::is_state_io(bool input, uint32_t index) const {
  for (const StateInfo& s : states_) {
    if ((input ? s.input_index : s.output_index) == index) {
      return true;
    }
  }
  return false;
}

}  // namespace executorch_nnapi
