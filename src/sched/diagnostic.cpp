#include "sched/diagnostic.h"

#include <nlohmann/json.hpp>

namespace loom::sched {

SourcePos position_of_offset(std::string_view text, std::size_t offset) {
  SourcePos p{1, 1};
  if (offset > text.size()) offset = text.size();
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.col = 1;
    } else {
      ++p.col;
    }
  }
  return p;
}

SourcePos find_position(std::string_view text, std::string_view needle, std::string_view after, int nth) {
  std::size_t from = 0;
  if (!after.empty()) {
    from = text.find(after);
    if (from == std::string_view::npos) return {};
  }
  std::size_t at = text.find(needle, from);
  for (int i = 0; i < nth && at != std::string_view::npos; ++i) at = text.find(needle, at + 1);
  if (at == std::string_view::npos) return {};
  return position_of_offset(text, at);
}

std::string format_error(std::string_view file, const UserError& e, std::string_view severity) {
  std::string out(file);
  if (e.pos.line > 0) out += ":" + std::to_string(e.pos.line) + ":" + std::to_string(e.pos.col);
  out += ": ";
  out += severity;
  out += ": ";
  out += e.what();
  return out;
}

std::string format_diagnostic_json(std::string_view file, const UserError& e, std::string_view severity,
                                   std::string_view hint) {
  nlohmann::json j;
  j["severity"] = severity;
  j["file"] = file;
  j["line"] = e.pos.line;
  j["column"] = e.pos.line > 0 ? e.pos.col : 0;
  j["message"] = e.what();
  if (!hint.empty()) j["hint"] = hint;
  j["notes"] = nlohmann::json::array();
  return j.dump();
}

}  // namespace loom::sched
