// Diagnostics printing (text and JSON). See include/loom/diagnostics.h.
#include "loom/diagnostics.h"

#include <nlohmann/json.hpp>

namespace loom {

uint32_t SourceManager::add(std::string name, std::string text) {
  files_.push_back({std::move(name), std::move(text)});
  return static_cast<uint32_t>(files_.size() - 1);
}

std::string SourceManager::line_text(uint32_t file, uint32_t line) const {
  if (file >= files_.size() || line == 0) return "";
  const std::string& t = files_[file].text;
  size_t pos = 0;
  for (uint32_t l = 1; l < line; ++l) {
    pos = t.find('\n', pos);
    if (pos == std::string::npos) return "";
    ++pos;
  }
  size_t end = t.find('\n', pos);
  return t.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
}

Diagnostic& DiagnosticEngine::error(SourceLoc loc, std::string message) {
  ++errors_;
  diags_.push_back({Severity::Error, loc, std::move(message), "", {}});
  return diags_.back();
}

Diagnostic& DiagnosticEngine::warning(SourceLoc loc, std::string message) {
  diags_.push_back({Severity::Warning, loc, std::move(message), "", {}});
  return diags_.back();
}

void DiagnosticEngine::report(Diagnostic d) {
  if (d.severity == Severity::Error) ++errors_;
  diags_.push_back(std::move(d));
}

void DiagnosticEngine::note(Diagnostic& d, SourceLoc loc, std::string message) {
  d.notes.push_back({Severity::Note, loc, std::move(message), "", {}});
}

std::string DiagnosticEngine::location(SourceLoc loc) const {
  std::string file = loc.file < sm_.size() ? sm_.name(loc.file) : "<unknown>";
  if (!loc.valid()) return file;
  return file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
}

static const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

static void format_one(const DiagnosticEngine& eng, const SourceManager& sm, const Diagnostic& d,
                       bool with_source, std::string& out) {
  out += eng.location(d.loc) + ": " + severity_name(d.severity) + ": " + d.message + "\n";
  if (with_source && d.loc.valid() && d.loc.file < sm.size()) {
    std::string line = sm.line_text(d.loc.file, d.loc.line);
    if (!line.empty()) {
      out += "  " + line + "\n  ";
      for (uint32_t i = 1; i < d.loc.col && i <= line.size(); ++i) out += line[i - 1] == '\t' ? '\t' : ' ';
      out += "^\n";
    }
  }
  if (!d.hint.empty()) out += eng.location(d.loc) + ": hint: " + d.hint + "\n";
  for (const Diagnostic& n : d.notes) format_one(eng, sm, n, with_source, out);
}

std::string DiagnosticEngine::format_text(bool with_source_line) const {
  std::string out;
  for (const Diagnostic& d : diags_) format_one(*this, sm_, d, with_source_line, out);
  return out;
}

static nlohmann::json to_json(const DiagnosticEngine& eng, const SourceManager& sm, const Diagnostic& d) {
  nlohmann::json j;
  j["severity"] = severity_name(d.severity);
  j["file"] = d.loc.file < sm.size() ? sm.name(d.loc.file) : "";
  j["line"] = d.loc.line;
  j["column"] = d.loc.col;
  j["message"] = d.message;
  if (!d.hint.empty()) j["hint"] = d.hint;
  j["notes"] = nlohmann::json::array();
  for (const Diagnostic& n : d.notes) j["notes"].push_back(to_json(eng, sm, n));
  return j;
}

// JSON Lines: one object per diagnostic, one per line, nothing when there is none, so that the
// output of several reports (a checker's warnings, then a pass's error) is still one valid stream.
std::string DiagnosticEngine::format_json() const {
  std::string out;
  for (const Diagnostic& d : diags_) out += to_json(*this, sm_, d).dump() + "\n";
  return out;
}

void internal_error(const char* file, int line, const std::string& message) {
  throw InternalError(std::string("internal compiler error at ") + file + ":" + std::to_string(line) +
                      ": " + message);
}

}  // namespace loom
