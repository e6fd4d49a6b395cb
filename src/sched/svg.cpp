#include "sched/svg.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace loom::sched {

namespace {

const char* kPalette[] = {"#7fbf7f", "#f4a6c6", "#8fb8e8", "#f6b26b", "#ffe066", "#b4a7d6", "#a2d5c6", "#e6b8af"};

std::string colour(const Schedule& s, int v) {
  if (!s.has_warps()) return "#cccccc";
  return kPalette[s.warp[v] % (sizeof(kPalette) / sizeof(kPalette[0]))];
}

std::string esc(const std::string& x) {
  std::string o;
  for (char c : x) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else if (c == '"') o += "&quot;";
    else o += c;
  }
  return o;
}

}  // namespace

std::string schedule_svg(const Problem& p, const Schedule& s, const std::string& title) {
  const int N = static_cast<int>(p.ops.size());
  const int I = s.ii, T = s.horizon(), n = s.stages();
  const int label_w = 110;
  const int cw = std::max(8, std::min(48, 1100 / std::max(1, std::max(I, T))));
  const int ch = 22;
  std::ostringstream body;
  int y = 40;
  // Panel 1: modular reservation table. Each unit instance is one row.
  body << "<text x='10' y='" << y - 12 << "' font-weight='bold'>modular reservation table (II = " << I << ")</text>\n";
  for (std::size_t f = 0; f < p.units.size(); ++f) {
    bool used = false;
    for (auto& o : p.ops)
      for (auto& row : o.rrt) used |= row[f] > 0;
    if (!used) continue;
    int lanes = std::max(1, p.capacity[f]);
    std::vector<std::vector<int>> occ(lanes, std::vector<int>(I, -1));
    for (int v = 0; v < N; ++v)
      for (int c = 0; c < p.ops[v].len; ++c)
        for (int k = 0; k < p.ops[v].rrt[c][f]; ++k) {
          int slot = (s.time[v] + c) % I;
          for (int l = 0; l < lanes; ++l)
            if (occ[l][slot] < 0) {
              occ[l][slot] = v;
              break;
            }
        }
    for (int l = 0; l < lanes; ++l) {
      body << "<text x='10' y='" << y + 15 << "'>" << esc(p.units[f]) << (lanes > 1 ? "#" + std::to_string(l) : "")
           << "</text>\n";
      for (int q = 0; q < I; ++q) {
        int v = occ[l][q];
        body << "<rect x='" << label_w + q * cw << "' y='" << y << "' width='" << cw << "' height='" << ch
             << "' fill='" << (v < 0 ? "#ffffff" : colour(s, v)) << "' stroke='#888'/>";
        if (v >= 0) {
          int stage = s.time[v] / I;
          body << "<title>" << esc(p.ops[v].name) << " stage " << stage << "</title>";
          if (cw >= 20)
            body << "<text x='" << label_w + q * cw + 2 << "' y='" << y + 15 << "' font-size='9'>"
                 << esc(p.ops[v].name.substr(0, static_cast<std::size_t>(cw / 6))) << "</text>";
        }
        body << "\n";
      }
      y += ch;
    }
  }
  for (int q = 0; q < I; ++q)
    if (I <= 40 || q % 5 == 0)
      body << "<text x='" << label_w + q * cw + 2 << "' y='" << y + 12 << "' font-size='9' fill='#555'>" << q << "</text>\n";
  y += 40;
  // Panel 2: Q per warp group, ops stacked in lanes where they overlap.
  body << "<text x='10' y='" << y - 12 << "' font-weight='bold'>straight-line program Q (" << n
       << " overlapped copies; prologue | steady state | epilogue)</text>\n";
  int W = s.has_warps() ? *std::max_element(s.warp.begin(), s.warp.end()) + 1 : 1;
  int top = y;
  for (int w = 0; w < W; ++w) {
    std::vector<std::vector<std::pair<int, int>>> lanes;  // busy intervals per lane
    struct Box {
      int v, c, lane;
    };
    std::vector<Box> boxes;
    for (int c = 0; c < n; ++c)
      for (int v = 0; v < N; ++v) {
        if ((s.has_warps() ? s.warp[v] : 0) != w) continue;
        int a = s.time[v] + c * I, b = a + p.ops[v].span();
        int lane = 0;
        for (;; ++lane) {
          if (lane == static_cast<int>(lanes.size())) lanes.emplace_back();
          bool free = true;
          for (auto [x0, x1] : lanes[lane]) free &= (b <= x0 || a >= x1);
          if (free) break;
        }
        lanes[lane].push_back({a, b});
        boxes.push_back({v, c, lane});
      }
    int rows = std::max<int>(1, static_cast<int>(lanes.size()));
    body << "<text x='10' y='" << y + 15 << "'>" << (s.has_warps() ? "warp group " + std::to_string(w) : "ops") << "</text>\n";
    for (auto& bx : boxes) {
      int a = s.time[bx.v] + bx.c * I;
      int width = std::max(1, p.ops[bx.v].span()) * cw;
      int by = y + bx.lane * ch;
      body << "<rect x='" << label_w + a * cw << "' y='" << by << "' width='" << width << "' height='" << ch - 2
           << "' rx='3' fill='" << colour(s, bx.v) << "' stroke='#444' stroke-width='" << (p.ops[bx.v].len ? 1 : 0.5)
           << "'><title>" << esc(p.ops[bx.v].name) << " iteration " << bx.c << " at " << a << "</title></rect>";
      if (width >= 24)
        body << "<text x='" << label_w + a * cw + 2 << "' y='" << by + 14 << "' font-size='9'>"
             << esc((p.ops[bx.v].name + "[" + std::to_string(bx.c) + "]").substr(0, static_cast<std::size_t>(width / 6)))
             << "</text>";
      body << "\n";
    }
    y += rows * ch + 6;
  }
  // Region separators.
  for (int x : {(n - 1) * I, n * I})
    body << "<line x1='" << label_w + x * cw << "' y1='" << top - 4 << "' x2='" << label_w + x * cw << "' y2='" << y
         << "' stroke='#c00' stroke-dasharray='4 3'/>\n";
  y += 10;
  int width = label_w + std::max(I, T) * cw + 20;
  std::ostringstream out;
  out << "<?xml version='1.0' encoding='UTF-8'?>\n<svg xmlns='http://www.w3.org/2000/svg' width='" << width
      << "' height='" << y << "' font-family='sans-serif' font-size='12'>\n"
      << "<rect width='100%' height='100%' fill='white'/>\n<text x='10' y='16' font-weight='bold'>" << esc(title)
      << "</text>\n"
      << body.str() << "</svg>\n";
  return out.str();
}

}  // namespace loom::sched
