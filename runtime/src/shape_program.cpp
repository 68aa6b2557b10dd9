#include "shape_program.h"

#include <cinttypes>
#include <limits>

#include "error_log.h"

namespace executorch_nnapi {
namespace {

using blob::ShapeOp;

// Net stack effect of each opcode: values popped, values pushed.
bool stack_effect(int op, int* pops, int* pushes) {
  switch (static_cast<ShapeOp>(op)) {
    case ShapeOp::PUSH_CONST:
    case ShapeOp::PUSH_INPUT_DIM:
    case ShapeOp::PUSH_SYMBOL:
      *pops = 0;
      *pushes = 1;
      return true;
    case ShapeOp::ADD:
    case ShapeOp::SUB:
    case ShapeOp::MUL:
    case ShapeOp::FLOOR_DIV:
    case ShapeOp::CEIL_DIV:
    case ShapeOp::MOD:
    case ShapeOp::MAX:
    case ShapeOp::MIN:
      *pops = 2;
      *pushes = 1;
      return true;
    case ShapeOp::NEG:
      *pops = 1;
      *pushes = 1;
      return true;
  }
  return false;
}

// Python's a // b (rounds toward -inf). b != 0 and no overflow are checked
// by the caller.
int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) {
    --q;
  }
  return q;
}

// Python's a % b (result has the divisor's sign).
int64_t floor_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) {
    r += b;
  }
  return r;
}

std::string format_bound(int64_t v) {
  // torch.export's unbounded max (int_oo) is serialized as the int64 limit.
  if (v == std::numeric_limits<int64_t>::max()) {
    return "inf";
  }
  if (v == std::numeric_limits<int64_t>::min()) {
    return "-inf";
  }
  return format_message("%" PRId64, v);
}

}  // namespace

bool ShapeProgram::init(const blob::ShapeProgram* program,
                        const std::vector<int>& input_ranks,
                        std::string* error) {
  expressions_.clear();
  symbols_.clear();
  checks_.clear();
  if (program == nullptr) {
    return true;
  }
  if (program->expressions() != nullptr) {
    const auto& exprs = *program->expressions();
    expressions_.reserve(exprs.size());
    for (flatbuffers::uoffset_t i = 0; i < exprs.size(); ++i) {
      const blob::ShapeExpression* e = exprs.Get(i);
      Expression expr;
      if (e->text() != nullptr) {
        expr.text = e->text()->str();
      } else {
        expr.text = format_message("expression %u", i);
      }
      if (e->code() != nullptr) {
        // FlatBuffers' verifier checks a vector's 4-byte length, not that
        // the 8-byte structs after it are aligned: only a corrupted blob
        // misplaces them (found by runtime/checks/blob_fuzzer.cpp).
        if (reinterpret_cast<uintptr_t>(e->code()->data()) %
                alignof(blob::ShapeInstruction) != 0) {
          *error = format_message(
              "the blob is corrupted: the instructions of shape expression "
              "%u are not %zu-byte aligned; re-export the model",
              i, alignof(blob::ShapeInstruction));
          return false;
        }
        expr.code.reserve(e->code()->size());
        for (const blob::ShapeInstruction* ins : *e->code()) {
          expr.code.push_back(Instruction{static_cast<int>(ins->op()),
                                          ins->arg(), ins->value()});
        }
      }
      expressions_.push_back(std::move(expr));
    }
  }
  if (program->symbols() != nullptr) {
    for (flatbuffers::uoffset_t i = 0; i < program->symbols()->size(); ++i) {
      const blob::Symbol* s = program->symbols()->Get(i);
      SymbolDef sym;
      sym.name = s->name() != nullptr ? s->name()->str()
                                      : format_message("symbol %u", i);
      sym.definition = s->definition();
      sym.min = s->min();
      sym.max = s->max();
      symbols_.push_back(std::move(sym));
    }
  }
  if (program->checks() != nullptr) {
    for (const blob::DimCheck* c : *program->checks()) {
      checks_.push_back(Check{c->arg(), c->dim(), c->expression()});
    }
  }

  for (size_t i = 0; i < expressions_.size(); ++i) {
    if (!validate_expression(i, symbols_.size(), input_ranks, error)) {
      return false;
    }
  }
  for (size_t k = 0; k < symbols_.size(); ++k) {
    const SymbolDef& s = symbols_[k];
    if (s.definition < 0 ||
        static_cast<size_t>(s.definition) >= expressions_.size()) {
      *error = format_message(
          "shape program: symbol %zu (%s) is defined by expression %d, but "
          "there are %zu expressions",
          k, s.name.c_str(), s.definition, expressions_.size());
      return false;
    }
    // Symbols are computed in order, so a definition may only use the
    // symbols before it.
    if (!validate_expression(static_cast<size_t>(s.definition), k,
                             input_ranks, error)) {
      *error += format_message(" (in the definition of symbol %s)",
                               s.name.c_str());
      return false;
    }
    if (s.min > s.max) {
      *error = format_message(
          "shape program: symbol %s has an empty range [%s, %s]",
          s.name.c_str(), format_bound(s.min).c_str(),
          format_bound(s.max).c_str());
      return false;
    }
  }
  for (size_t i = 0; i < checks_.size(); ++i) {
    const Check& c = checks_[i];
    if (c.expression < 0 ||
        static_cast<size_t>(c.expression) >= expressions_.size()) {
      *error = format_message(
          "shape program: check %zu uses expression %d, but there are %zu "
          "expressions",
          i, c.expression, expressions_.size());
      return false;
    }
    if (c.arg >= input_ranks.size() || input_ranks[c.arg] < 0 ||
        c.dim >= static_cast<uint32_t>(input_ranks[c.arg])) {
      *error = format_message(
          "shape program: check %zu refers to input %u dimension %u, which "
          "is not a dimension of a tensor input",
          i, c.arg, c.dim);
      return false;
    }
  }
  return true;
}

bool ShapeProgram::validate_expression(size_t index, size_t symbols_visible,
                                       const std::vector<int>& input_ranks,
                                       std::string* error) const {
  const Expression& expr = expressions_[index];
  size_t depth = 0;
  for (size_t pc = 0; pc < expr.code.size(); ++pc) {
    const Instruction& ins = expr.code[pc];
    int pops = 0;
    int pushes = 0;
    if (!stack_effect(ins.op, &pops, &pushes)) {
      *error = format_message(
          "shape program: expression %zu (%s) instruction %zu has unknown "
          "opcode %d",
          index, expr.text.c_str(), pc, ins.op);
      return false;
    }
    if (static_cast<ShapeOp>(ins.op) == ShapeOp::PUSH_INPUT_DIM) {
      const bool arg_ok = ins.arg >= 0 &&
                          static_cast<size_t>(ins.arg) < input_ranks.size() &&
                          input_ranks[ins.arg] >= 0;
      if (!arg_ok || ins.value < 0 || ins.value >= input_ranks[ins.arg]) {
        *error = format_message(
            "shape program: expression %zu (%s) reads input %d dimension "
            "%" PRId64 ", which is not a dimension of a tensor input",
            index, expr.text.c_str(), ins.arg, ins.value);
        return false;
      }
    } else if (static_cast<ShapeOp>(ins.op) == ShapeOp::PUSH_SYMBOL) {
      if (ins.arg < 0 || static_cast<size_t>(ins.arg) >= symbols_visible) {
        *error = format_message(
            "shape program: expression %zu (%s) reads symbol %d, but only "
            "%zu symbol(s) are available there",
            index, expr.text.c_str(), ins.arg, symbols_visible);
        return false;
      }
    }
    if (depth < static_cast<size_t>(pops)) {
      *error = format_message(
          "shape program: expression %zu (%s) instruction %zu pops an empty "
          "stack",
          index, expr.text.c_str(), pc);
      return false;
    }
    depth = depth - pops + pushes;
    if (depth > kMaxStackDepth) {
      *error = format_message(
          "shape program: expression %zu (%s) needs more than %zu stack "
          "entries",
          index, expr.text.c_str(), kMaxStackDepth);
      return false;
    }
  }
  if (depth != 1) {
    *error = format_message(
        "shape program: expression %zu (%s) leaves %zu values on the stack "
        "instead of 1",
        index, expr.text.c_str(), depth);
    return false;
  }
  return true;
}

bool ShapeProgram::run(size_t index, const InputDims& dims,
                       const int64_t* symbols, int64_t* result,
                       std::string* error) const {
  const Expression& expr = expressions_[index];
  int64_t stack[kMaxStackDepth];
  size_t sp = 0;
  // Bounds are guaranteed by validate_expression; the checks stay as a cheap
  // guard against a program that was not validated.
  for (const Instruction& ins : expr.code) {
    int64_t a = 0;
    int64_t b = 0;
    int64_t r = 0;
    const ShapeOp op = static_cast<ShapeOp>(ins.op);
    switch (op) {
      case ShapeOp::PUSH_CONST:
      case ShapeOp::PUSH_INPUT_DIM:
      case ShapeOp::PUSH_SYMBOL:
        if (sp >= kMaxStackDepth) {
          *error = format_message("shape expression %s: stack overflow",
                                  expr.text.c_str());
          return false;
        }
        if (op == ShapeOp::PUSH_CONST) {
          r = ins.value;
        } else if (op == ShapeOp::PUSH_INPUT_DIM) {
          const std::vector<int64_t>& d = dims[static_cast<size_t>(ins.arg)];
          if (static_cast<uint64_t>(ins.value) >= d.size()) {
            *error = format_message(
                "shape expression %s reads input %d dimension %" PRId64
                ", but that input has rank %zu",
                expr.text.c_str(), ins.arg, ins.value, d.size());
            return false;
          }
          r = d[static_cast<size_t>(ins.value)];
        } else {
          r = symbols[ins.arg];
        }
        stack[sp++] = r;
        continue;
      case ShapeOp::NEG:
        if (sp < 1) {
          *error = format_message("shape expression %s: stack underflow",
                                  expr.text.c_str());
          return false;
        }
        a = stack[sp - 1];
        if (a == std::numeric_limits<int64_t>::min()) {
          *error = format_message(
              "shape expression %s overflows int64 for these input sizes",
              expr.text.c_str());
          return false;
        }
        stack[sp - 1] = -a;
        continue;
      default:
        break;
    }
    if (sp < 2) {
      *error = format_message("shape expression %s: stack underflow",
                              expr.text.c_str());
      return false;
    }
    b = stack[--sp];
    a = stack[sp - 1];
    bool overflow = false;
    switch (op) {
      case ShapeOp::ADD:
        overflow = __builtin_add_overflow(a, b, &r);
        break;
      case ShapeOp::SUB:
        overflow = __builtin_sub_overflow(a, b, &r);
        break;
      case ShapeOp::MUL:
        overflow = __builtin_mul_overflow(a, b, &r);
        break;
      case ShapeOp::FLOOR_DIV:
      case ShapeOp::CEIL_DIV:
      case ShapeOp::MOD:
        if (b == 0) {
          *error = format_message(
              "shape expression %s divides by zero for these input sizes",
              expr.text.c_str());
          return false;
        }
        if (op == ShapeOp::MOD) {
          // a % -1 is 0; computing it could trap for INT64_MIN.
          r = (b == -1) ? 0 : floor_mod(a, b);
        } else if (op == ShapeOp::FLOOR_DIV) {
          overflow = (a == std::numeric_limits<int64_t>::min() && b == -1);
          if (!overflow) {
            r = floor_div(a, b);
          }
        } else {
          // ceil(a / b) = -((-a) // b).
          overflow = (a == std::numeric_limits<int64_t>::min());
          if (!overflow) {
            const int64_t q_neg = -a;
            overflow =
                (q_neg == std::numeric_limits<int64_t>::min() && b == -1);
            if (!overflow) {
              const int64_t q = floor_div(q_neg, b);
              overflow = (q == std::numeric_limits<int64_t>::min());
              r = overflow ? 0 : -q;
            }
          }
        }
        break;
      case ShapeOp::MAX:
        r = a > b ? a : b;
        break;
      case ShapeOp::MIN:
        r = a < b ? a : b;
        break;
      default:
        *error = format_message("shape expression %s has unknown opcode %d",
                                expr.text.c_str(), ins.op);
        return false;
    }
    if (overflow) {
      *error = format_message(
          "shape expression %s overflows int64 for these input sizes",
          expr.text.c_str());
      return false;
    }
    stack[sp - 1] = r;
  }
  if (sp != 1) {
    *error = format_message("shape expression %s is malformed",
                            expr.text.c_str());
    return false;
  }
  *result = stack[0];
  return true;
}

bool ShapeProgram::evaluate(const InputDims& dims,
                            std::vector<int64_t>* values,
                            std::string* error) const {
  std::vector<int64_t> symbol_values(symbols_.size(), 0);
  for (size_t k = 0; k < symbols_.size(); ++k) {
    const SymbolDef& s = symbols_[k];
    const size_t def = static_cast<size_t>(s.definition);
    int64_t v = 0;
    if (!run(def, dims, symbol_values.data(), &v, error)) {
      return false;
    }
    if (v < s.min || v > s.max) {
      const Expression& e = expressions_[def];
      if (e.code.size() == 1 &&
          static_cast<ShapeOp>(e.code[0].op) == ShapeOp::PUSH_INPUT_DIM) {
        // The common case: the symbol is one input dimension; name it.
        *error = format_message(
            "input %d dimension %" PRId64 " is %" PRId64
            ", outside the range [%s, %s] the model was exported with "
            "(symbol %s)",
            e.code[0].arg, e.code[0].value, v, format_bound(s.min).c_str(),
            format_bound(s.max).c_str(), s.name.c_str());
      } else {
        *error = format_message(
            "symbol %s = %s is %" PRId64
            " for these inputs, outside the range [%s, %s] the model was "
            "exported with",
            s.name.c_str(), e.text.c_str(), v, format_bound(s.min).c_str(),
            format_bound(s.max).c_str());
      }
      return false;
    }
    symbol_values[k] = v;
  }
  for (const Check& c : checks_) {
    int64_t expected = 0;
    if (!run(static_cast<size_t>(c.expression), dims, symbol_values.data(),
             &expected, error)) {
      return false;
    }
    const std::vector<int64_t>& d = dims[c.arg];
    if (c.dim >= d.size()) {
      *error = format_message(
          "input %u has rank %zu, but the exported program checks its "
          "dimension %u",
          c.arg, d.size(), c.dim);
      return false;
    }
    if (d[c.dim] != expected) {
      *error = format_message(
          "input %u dimension %u is %" PRId64
          " but the exported program requires it to equal %s = %" PRId64,
          c.arg, c.dim, d[c.dim],
          expressions_[static_cast<size_t>(c.expression)].text.c_str(),
          expected);
      return false;
    }
  }
  values->resize(expressions_.size());
  for (size_t i = 0; i < expressions_.size(); ++i) {
    if (!run(i, dims, symbol_values.data(), &(*values)[i], error)) {
      return false;
    }
  }
  return true;
}

}  // namespace executorch_nnapi
