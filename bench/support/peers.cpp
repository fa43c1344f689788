// bench/support/peers.cpp — the peer registry (support/peers.hpp).
#include "support/peers.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <utility>

namespace kps::bench {

namespace {
std::vector<std::pair<int, PeerProvider>>& providers() {
  static std::vector<std::pair<int, PeerProvider>> p;
  return p;
}

template <class T>
void describe(const Peers& all, std::map<std::string, std::string>& seen) {
  const auto mark = [&](const std::string& name, Placement placement) {
    seen[name] = placement == Placement::rounds ? "in rounds" : "alone";
  };
  for (const auto& p : all.scans<T>()) mark("scan/" + p.name, p.placement);
  for (const auto& p : all.sums<T>()) mark("reduce/" + p.name, p.placement);
}
}  // namespace

int add_peer_provider(int rank, PeerProvider provider) {
  providers().emplace_back(rank, provider);
  return rank;
}

const Peers& peers() {
  static const std::unique_ptr<Peers> all = [] {
    auto p = std::make_unique<Peers>();
    auto ordered = providers();
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& entry : ordered) entry.second(*p);
    return p;
  }();
  return *all;
}

std::string peers_summary() {
  std::map<std::string, std::string> seen;
  describe<std::int32_t>(peers(), seen);
  describe<std::int64_t>(peers(), seen);
  describe<float>(peers(), seen);
  describe<double>(peers(), seen);
  std::string s;
  for (const auto& [name, how] : seen) s += (s.empty() ? "" : ", ") + name + " (" + how + ")";
  return s.empty() ? "none" : s;
}

std::string op_peers_summary() {
  std::string s;
  for (const auto& [name, count] : peers().op_peer_counts())
    s += (s.empty() ? "" : ", ") + name + " (" + std::to_string(count) + " problems)";
  return s.empty() ? "none" : s;
}

std::string peer_notes() {
  std::string s;
  for (const std::string& line : peers().notes()) s += (s.empty() ? "" : "; ") + line;
  return s;
}

std::string exec_runtime() {
  std::string name = Exec::name();
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name == "serial" ? "none" : name;
}

}  // namespace kps::bench
