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
    case ShapeOp::PUSH_INPUT_VALUE:
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
                        const std::vector<size_t>& input_value_counts,
                        std::string* error) {
  expressions_.clear();
  symbols_.clear();
  checks_.clear();
  assertions_.clear();
  value_args_.assign(input_ranks.size(), false);
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
  if (program->assertions() != nullptr) {
    for (const blob::ShapeAssertion* a : *program->assertions()) {
      assertions_.push_back(Assertion{
          a->expression(), a->text() != nullptr ? a->text()->str() : ""});
    }
  }
  return validate_references(input_ranks, input_value_counts, error);
}

// The indices init copied: expressions, their symbols and inputs, the
// symbols' definitions and ranges, the checks' and assertions' expressions.
bool ShapeProgram::validate_references(
    const std::vector<int>& input_ranks,
    const std::vector<size_t>& input_value_counts, std::string* error) {
  for (size_t i = 0; i < expressions_.size(); ++i) {
    if (!validate_expression(i, symbols_.size(), input_ranks,
                             input_value_counts, error)) {
      return false;
    }
    for (const Instruction& ins : expressions_[i].code) {
      if (static_cast<ShapeOp>(ins.op) == ShapeOp::PUSH_INPUT_VALUE) {
        value_args_[static_cast<size_t>(ins.arg)] = true;  // validated above
      }
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
                             input_ranks, input_value_counts, error)) {
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
  for (size_t i = 0; i < assertions_.size(); ++i) {
    const int32_t e = assertions_[i].expression;
    if (e < 0 || static_cast<size_t>(e) >= expressions_.size()) {
      *error = format_message(
          "shape program: assertion %zu uses expression %d, but there are "
          "%zu expressions",
          i, e, expressions_.size());
      return false;
    }
  }
  return true;
}

// An instruction reading an input: a dimension of a tensor (or an INT
// argument's value), or an element of an integer tensor.
bool ShapeProgram::validate_read(size_t index, const Instruction& ins,
                                 const std::vector<int>& input_ranks,
                                 const std::vector<size_t>& input_value_counts,
                                 std::string* error) const {
  const Expression& expr = expressions_[index];
  const bool arg_ok = ins.arg >= 0 &&
                      static_cast<size_t>(ins.arg) < input_ranks.size() &&
                      input_ranks[ins.arg] >= 0;
  if (static_cast<ShapeOp>(ins.op) == ShapeOp::PUSH_INPUT_DIM) {
    if (!arg_ok || ins.value < 0 || ins.value >= input_ranks[ins.arg]) {
      *error = format_message(
          "shape program: expression %zu (%s) reads input %d dimension "
          "%" PRId64 ", which is not a dimension of a tensor input",
          index, expr.text.c_str(), ins.arg, ins.value);
      return false;
    }
    return true;
  }
  const size_t count =
      arg_ok && static_cast<size_t>(ins.arg) < input_value_counts.size()
          ? input_value_counts[ins.arg]
          : 0;
  if (ins.value < 0 || static_cast<uint64_t>(ins.value) >= count) {
    *error = format_message(
        "shape program: expression %zu (%s) reads element %" PRId64
        " of input %d, which is not an element of an integer tensor input",
        index, expr.text.c_str(), ins.value, ins.arg);
    return false;
  }
  return true;
}

bool ShapeProgram::validate_expression(
    size_t index, size_t symbols_visible, const std::vector<int>& input_ranks,
    const std::vector<size_t>& input_value_counts, std::string* error) const {
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
    const ShapeOp op = static_cast<ShapeOp>(ins.op);
    if (op == ShapeOp::PUSH_INPUT_DIM || op == ShapeOp::PUSH_INPUT_VALUE) {
      if (!validate_read(index, ins, input_ranks, input_value_counts, error)) {
        return false;
      }
    } else if (op == ShapeOp::PUSH_SYMBOL) {
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

// Pushes what `ins` reads: an input's dimension or an element of its data.
bool ShapeProgram::push_input(const Expression& expr, const Instruction& ins,
                              const Inputs& in, int64_t* r,
                              std::string* error) const {
  const bool value = static_cast<ShapeOp>(ins.op) == ShapeOp::PUSH_INPUT_VALUE;
  const InputDims& source = value ? in.values : in.dims;
  const size_t arg = static_cast<size_t>(ins.arg);
  if (arg >= source.size() ||
      static_cast<uint64_t>(ins.value) >= source[arg].size()) {
    *error = format_message(
        "shape expression %s reads input %d %s %" PRId64
        ", but that input has %zu",
        expr.text.c_str(), ins.arg, value ? "element" : "dimension", ins.value,
        arg < source.size() ? source[arg].size() : 0);
    return false;
  }
  *r = source[arg][static_cast<size_t>(ins.value)];
  return true;
}

bool ShapeProgram::run(size_t index, const Inputs& in,
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
      case ShapeOp::PUSH_INPUT_VALUE:
      case ShapeOp::PUSH_SYMBOL:
        if (sp >= kMaxStackDepth) {
          *error = format_message("shape expression %s: stack overflow",
                                  expr.text.c_str());
          return false;
        }
        if (op == ShapeOp::PUSH_CONST) {
          r = ins.value;
        } else if (op == ShapeOp::PUSH_SYMBOL) {
          r = symbols[ins.arg];
        } else if (!push_input(expr, ins, in, &r, error)) {
          return false;
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

// Each symbol from its definition, within the range it was exported with.
bool ShapeProgram::compute_symbols(const Inputs& in,
                                   std::vector<int64_t>* symbol_values,
                                   std::string* error) const {
  symbol_values->assign(symbols_.size(), 0);
  for (size_t k = 0; k < symbols_.size(); ++k) {
    const SymbolDef& s = symbols_[k];
    const size_t def = static_cast<size_t>(s.definition);
    int64_t v = 0;
    if (!run(def, in, symbol_values->data(), &v, error)) {
      return false;
    }
    if (v < s.min || v > s.max) {
      const Expression& e = expressions_[def];
      const ShapeOp op = e.code.size() == 1 ? static_cast<ShapeOp>(e.code[0].op)
                                            : ShapeOp::PUSH_CONST;
      if (op == ShapeOp::PUSH_INPUT_DIM || op == ShapeOp::PUSH_INPUT_VALUE) {
        // The common cases: the symbol is one input dimension or element.
        *error = format_message(
            "input %d %s %" PRId64 " is %" PRId64
            ", outside the range [%s, %s] the model was exported with "
            "(symbol %s)",
            e.code[0].arg, op == ShapeOp::PUSH_INPUT_DIM ? "dimension" : "element",
            e.code[0].value, v, format_bound(s.min).c_str(),
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
    (*symbol_values)[k] = v;
  }
  return true;
}

// Every assertion's expression is >= 0; the message names the condition and
// the symbols' values.
bool ShapeProgram::check_assertions(const Inputs& in,
                                    const std::vector<int64_t>& symbols,
                                    std::string* error) const {
  for (const Assertion& a : assertions_) {
    int64_t v = 0;
    if (!run(static_cast<size_t>(a.expression), in, symbols.data(), &v, error)) {
      return false;
    }
    if (v >= 0) {
      continue;
    }
    std::string values;
    for (size_t k = 0; k < symbols_.size(); ++k) {
      const SymbolDef& s = symbols_[k];
      values += format_message(
          "%s%s = %s = %" PRId64, k == 0 ? "" : ", ", s.name.c_str(),
          expressions_[static_cast<size_t>(s.definition)].text.c_str(),
          symbols[k]);
    }
    *error = format_message(
        "these inputs break the exported program's condition %s (with %s)",
        a.text.c_str(), values.c_str());
    return false;
  }
  return true;
}

bool ShapeProgram::evaluate(const InputDims& dims,
                            const InputValues& input_values,
                            std::vector<int64_t>* values,
                            std::string* error) const {
  const Inputs in{dims, input_values};
  std::vector<int64_t> symbol_values;
  if (!compute_symbols(in, &symbol_values, error)) {
    return false;
  }
  for (const Check& c : checks_) {
    int64_t expected = 0;
    if (!run(static_cast<size_t>(c.expression), in, symbol_values.data(),
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
  if (!check_assertions(in, symbol_values, error)) {
    return false;
  }
  values->resize(expressions_.size());
  for (size_t i = 0; i < expressions_.size(); ++i) {
    if (!run(i, in, symbol_values.data(), &(*values)[i], error)) {
      return false;
    }
  }
  return true;
}

}  // namespace executorch_nnapi
