// --sim-weak WHAT=FACTOR[@HOST]: the spec's reader, which host a spec applies on, and the sim-weak warning's text.
#include "backends/sim/sim_weak.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "util/parse.hpp"
#include "sdma_limits.hpp"

namespace sdma {

namespace {

// The field of SimWeakness a WHAT names; null for a name limits.json does not list.
double* fieldOf(sim::SimWeakness& weakness, std::string_view what) {
  if (std::find(std::begin(limits::simWeakKinds), std::end(limits::simWeakKinds), what) ==
      std::end(limits::simWeakKinds)) {
    return nullptr;
  }
  if (what == "engine") return &weakness.engine;
  if (what == "cu") return &weakness.cu;
  if (what == "link") return &weakness.link;
  if (what == "pcie") return &weakness.pcie;
  return nullptr;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// A plain decimal: digits with an optional fraction ("0.6", "2", ".5", "1."); no sign, no
// exponent, no "inf" or "nan". strtod reads it correctly rounded; the helper never sets a
// locale, so '.' is the decimal point.
std::optional<double> parseDecimal(std::string_view text) {
  const std::size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  if ((whole.empty() && fraction.empty()) || !std::all_of(whole.begin(), whole.end(), isDigit) ||
      !std::all_of(fraction.begin(), fraction.end(), isDigit)) {
    return std::nullopt;
  }
  return std::strtod(std::string(text).c_str(), nullptr);
}

// Letters, digits, '-' and '_', at most 63 (one DNS label): what gethostname's short name is made of.
bool isShortHostName(std::string_view host) {
  return !host.empty() && host.size() <= 63 && std::all_of(host.begin(), host.end(), [](char c) {
    return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_';
  });
}

std::string kindList() {
  std::string list;
  const std::size_t n = std::size(limits::simWeakKinds);
  for (std::size_t i = 0; i < n; ++i) {
    list += (i == 0 ? "" : i + 1 == n ? " or " : ", ") + std::string(limits::simWeakKinds[i]);
  }
  return list;
}

std::string formatFactor(double factor) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", factor);
  return text;
}

SimWeakSpec parseOne(std::string_view flag, std::string_view item) {
  const auto malformed = [&](const std::string& why) {
    return UsageError(std::string(flag) + ": " + quoted(item) + " " + why + " (" + simWeakForm() + ")");
  };
  const std::size_t equals = item.find('=');
  if (equals == std::string_view::npos) throw malformed("is not WHAT=FACTOR[@HOST]");
  SimWeakSpec spec;
  spec.what = std::string(item.substr(0, equals));
  sim::SimWeakness probe;
  if (fieldOf(probe, spec.what) == nullptr) throw malformed("does not name what to weaken");
  std::string_view rest = item.substr(equals + 1);
  const std::size_t at = rest.find('@');
  if (at != std::string_view::npos) {
    const std::string_view host = rest.substr(at + 1);
    if (host.find('.') != std::string_view::npos && isShortHostName(host.substr(0, host.find('.')))) {
      throw malformed("names a full host name: give the short one, up to the first '.', as `hostname -s` prints it");
    }
    if (!isShortHostName(host)) throw malformed("does not name a host after '@'");
    spec.host = std::string(host);
    rest = rest.substr(0, at);
  }
  const std::optional<double> factor = parseDecimal(rest);
  if (!factor) throw malformed("has no decimal factor after '='");
  if (*factor <= 0 || *factor > static_cast<double>(limits::simWeakFactorMax)) {
    throw malformed("has a factor out of range");
  }
  spec.factor = *factor;
  return spec;
}

}  // namespace

std::vector<SimWeakSpec> parseSimWeakList(std::string_view flag, std::string_view text) {
  std::vector<SimWeakSpec> specs;
  for (std::string_view item : splitOn(text, ',')) specs.push_back(parseOne(flag, item));
  return specs;
}

std::string simWeakForm() {
  return "WHAT=FACTOR[@HOST], comma-separated; WHAT " + kindList() + "; FACTOR a decimal above 0, at most " +
         std::to_string(limits::simWeakFactorMax) + "; HOST a short host name; e.g. engine=0.6@n2,link=0.5@n3";
}

sim::SimWeakness weaknessOnHost(const std::vector<SimWeakSpec>& specs, std::string_view shortHost) {
  sim::SimWeakness weakness;
  for (const SimWeakSpec& spec : specs) {
    if (!spec.host.empty() && spec.host != shortHost) continue;
    if (double* field = fieldOf(weakness, spec.what)) *field *= spec.factor;
  }
  return weakness;
}

std::string describeWeakness(const sim::SimWeakness& weakness, std::string_view shortHost) {
  std::string parts;
  const auto add = [&](double factor, const char* what) {
    if (factor == 1) return;
    parts += (parts.empty() ? "" : ", ") + std::string(what) + " at " + formatFactor(factor) + "x";
  };
  add(weakness.engine, "engine copies (engine/host, engine/device)");
  add(weakness.cu, "CU copies (cu/host, cu/device)");
  add(weakness.link, "GPU <-> GPU copies (xGMI links)");
  add(weakness.pcie, "host <-> GPU copies (PCIe)");
  const std::string host =
      shortHost.empty() ? std::string("this host (its name is unknown)") : "host " + std::string(shortHost);
  return "--sim-weak: the simulated node on " + host + " is weakened: " + parts +
         " the model's bandwidth; these numbers are not the model's";
}

}  // namespace sdma
