// Printing of the recognized contraction kernel (src/tx/contraction.h).
#include "tx/contraction.h"

#include <sstream>

namespace loom::tx {

const char* pointwise_name(Pointwise p) {
  switch (p) {
    case Pointwise::Identity: return "identity";
    case Pointwise::Relu: return "relu";
    case Pointwise::Gelu: return "gelu";
    case Pointwise::Silu: return "silu";
    case Pointwise::Sigmoid: return "sigmoid";
    case Pointwise::Exp: return "exp";
    case Pointwise::Neg: return "neg";
  }
  return "?";
}

namespace {
std::string operand(const TxOperand& o, const std::string& idx) {
  std::string s = o.name + "[" + idx + "]";
  if (o.prologue != Pointwise::Identity) s = std::string(pointwise_name(o.prologue)) + "(" + s + ")";
  return s;
}
}  // namespace

std::string describe(const ContractionKernel& k) {
  std::string b;
  for (const std::string& d : k.batch) b += d + ", ";
  std::ostringstream o;
  o << k.name << ": " << k.out.name << "[" << b << k.m << ", " << k.n << "] = ";
  std::string body;
  for (size_t t = 0; t < k.terms.size(); ++t) {
    const TxTerm& term = k.terms[t];
    const std::string ai = term.a.transposed ? term.k + ", " + k.m : k.m + ", " + term.k;
    const std::string bi = term.b.transposed ? k.n + ", " + term.k : term.k + ", " + k.n;
    body += (t ? " + " : "") + std::string("sum_") + term.k + " " + operand(term.a, b + ai) + " * " +
            operand(term.b, b + bi);
  }
  if (k.bias) body += " + " + k.bias->name + "[" + k.n + "]";
  if (k.residual) body += " + " + k.residual->name + "[" + b + k.m + ", " + k.n + "]";
  if (k.activation != Pointwise::Identity) body = std::string(pointwise_name(k.activation)) + "(" + body + ")";
  o << body;
  if (k.u) o << "  (tile " << k.u << " x " << k.v << ", K step " << k.w << ")";
  return o.str();
}

}  // namespace loom::tx
