// The blob's shape program: symbolic sizes from torch.export, evaluated for
// the actual input sizes at execute time (docs/architecture.md, "Dynamic sizes").
//
// Every expression is a small stack program over int64. Symbols are defined
// by an expression over the input dims and carry the [min, max] range the
// model was exported with; DimChecks are equalities the inputs must satisfy;
// the remaining expressions size operands and fill shape-valued constants.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nnapi_blob_generated.h"

namespace executorch_nnapi {

/// Sizes of the delegate's input arguments, by argument index (an empty
/// vector for an ignored argument, the one value of an INT argument).
using InputDims = std::vector<std::vector<int64_t>>;

/// Elements of the delegate's integer tensor inputs the program reads
/// (PUSH_INPUT_VALUE), by argument index (empty for the others).
using InputValues = std::vector<std::vector<int64_t>>;

/// A validated, self-contained copy of a blob::ShapeProgram.
class ShapeProgram {
 public:
  /// Deepest stack an expression may need (checked at init, so evaluation
  /// can use a fixed array).
  static constexpr size_t kMaxStackDepth = 64;

  /// Copies and validates `program` (may be null: no symbols, no
  /// expressions). `input_ranks[i]` is the rank of input argument i (1 for
  /// an INT argument), or -1 when the argument is ignored;
  /// `input_value_counts[i]` the number of elements PUSH_INPUT_VALUE may read
  /// from it (0: it holds no integers to read). Returns false with a message
  /// in *error when an index is out of range, an opcode is unknown or an
  /// expression does not leave exactly one value on the stack.
  bool init(const blob::ShapeProgram* program,
            const std::vector<int>& input_ranks,
            const std::vector<size_t>& input_value_counts, std::string* error);

  size_t num_symbols() const { return symbols_.size(); }
  size_t num_expressions() const { return expressions_.size(); }

  /// Whether some expression reads the elements of input argument `arg`.
  bool reads_values(size_t arg) const {
    return arg < value_args_.size() && value_args_[arg];
  }

  /// Human-readable text of expression `index` (for messages).
  const std::string& expression_text(size_t index) const {
    return expressions_[index].text;
  }

  /// Evaluates the program for the actual input sizes and read elements:
  /// computes the symbols and checks them against their exported ranges,
  /// verifies the DimChecks and the assertions, then evaluates every
  /// expression into *values (one per expression). `dims` must hold, for
  /// each tensor argument, as many sizes as its rank, and `input_values` the
  /// elements of each argument reads_values() names. On failure returns false
  /// with a user-facing message in *error.
  bool evaluate(const InputDims& dims, const InputValues& input_values,
                std::vector<int64_t>* values, std::string* error) const;

 private:
  struct Instruction {
    int op;
    int32_t arg;
    int64_t value;
  };
  struct Expression {
    std::vector<Instruction> code;
    std::string text;
  };
  struct SymbolDef {
    std::string name;
    int32_t definition;
    int64_t min;
    int64_t max;
  };
  struct Check {
    uint32_t arg;
    uint32_t dim;
    int32_t expression;
  };
  struct Assertion {
    int32_t expression;
    std::string text;
  };
  // What one evaluation reads.
  struct Inputs {
    const InputDims& dims;
    const InputValues& values;
  };

  bool validate_expression(size_t index, size_t symbols_visible,
                           const std::vector<int>& input_ranks,
                           const std::vector<size_t>& input_value_counts,
                           std::string* error) const;
  bool validate_read(size_t index, const Instruction& ins,
                     const std::vector<int>& input_ranks,
                     const std::vector<size_t>& input_value_counts,
                     std::string* error) const;
  bool validate_references(const std::vector<int>& input_ranks,
                           const std::vector<size_t>& input_value_counts,
                           std::string* error);
  bool push_input(const Expression& expr, const Instruction& ins,
                  const Inputs& in, int64_t* r, std::string* error) const;
  bool run(size_t index, const Inputs& in, const int64_t* symbols,
           int64_t* result, std::string* error) const;
  bool compute_symbols(const Inputs& in, std::vector<int64_t>* symbol_values,
                       std::string* error) const;
  bool check_assertions(const Inputs& in, const std::vector<int64_t>& symbols,
                        std::string* error) const;

  std::vector<Expression> expressions_;
  std::vector<SymbolDef> symbols_;
  std::vector<Check> checks_;
  std::vector<Assertion> assertions_;
  // Per input argument: whether an expression reads its elements.
  std::vector<bool> value_args_;
};

}  // namespace executorch_nnapi
