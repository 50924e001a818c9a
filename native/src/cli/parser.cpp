// The one command-line parser (cli/parser.hpp): finds each word's row in the subcommand's
// table, takes its value, and hands the value to the row's reader or to the subcommand.
#include "cli/parser.hpp"

#include <algorithm>

namespace sdma::cli {

namespace {

bool spelledAs(const FlagSpec& flag, std::string_view name) {
  if (flag.name == name) return true;
  for (std::string_view alias : splitOn(flag.aliases, ' ')) {
    if (!alias.empty() && alias == name) return true;
  }
  return false;
}

const FlagSpec* findFlag(const FlagRules& rules, std::string_view name) {
  for (const FlagSpec& flag : *rules.flags) {
    if (spelledAs(flag, name)) return &flag;
  }
  return nullptr;
}

// A word that names a flag: "--x", or a short alias this subcommand declares ("-b").
bool looksLikeFlag(const FlagRules& rules, std::string_view arg) {
  if (arg.substr(0, 2) == "--" && arg.size() > 2) return true;
  const std::string_view name = arg.substr(0, arg.find('='));
  return arg.size() > 1 && arg[0] == '-' && findFlag(rules, name) != nullptr;
}

}  // namespace

std::vector<std::string_view> parseFlags(const std::vector<std::string_view>& args, std::size_t first,
                                         const FlagRules& rules, void* target,
                                         const std::function<void(std::string_view, std::string_view)>& apply) {
  std::size_t i = first;
  for (; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (rules.stopAtFirstWord && arg == "--") {
      ++i;
      break;
    }
    if (!looksLikeFlag(rules, arg)) {
      if (rules.stopAtFirstWord) break;
      throw UsageError("unexpected argument " + quoted(arg));
    }
    const std::size_t equals = arg.find('=');
    const std::string_view name = arg.substr(0, equals);
    const FlagSpec* flag = findFlag(rules, name);
    if (!flag) {
      const bool elsewhere =
          rules.allFlagNames != nullptr &&
          std::find(rules.allFlagNames->begin(), rules.allFlagNames->end(), name) != rules.allFlagNames->end();
      if (elsewhere) {
        throw UsageError(std::string(name) + " is not a flag of " + std::string(rules.command) +
                         std::string(rules.unknownHint));
      }
      throw UsageError("unknown flag " + std::string(name) + " for " + std::string(rules.command) +
                       std::string(rules.unknownHint));
    }
    std::string_view value;
    if (equals != std::string_view::npos) {
      value = arg.substr(equals + 1);
    } else if (flag->kind == FlagKind::Switch) {
      value = "on";
    } else if (i + 1 < args.size() && args[i + 1].substr(0, 2) != "--") {
      value = args[++i];
    } else {
      throw UsageError(std::string(name) + " needs a value");
    }
    if (flag->set != nullptr && target != nullptr) {
      flag->set(*flag, value, target);
      continue;
    }
    if (flag->check != nullptr) flag->check(*flag, value);
    apply(flag->name, value);
  }
  return std::vector<std::string_view>(args.begin() + static_cast<std::ptrdiff_t>(std::min(i, args.size())),
                                       args.end());
}

bool parseOnOff(std::string_view flag, std::string_view text, bool allowNumbers) {
  if (text == "on" || (allowNumbers && text == "1")) return true;
  if (text == "off" || (allowNumbers && text == "0")) return false;
  throw UsageError(std::string(flag) + ": " + quoted(text) + " is not on or off");
}

std::string parseBackendName(std::string_view flag, std::string_view text) {
  if (text != "auto" && text != "sim" && text != "hip" && text != "cuda") {
    throw UsageError(std::string(flag) + ": unknown backend " + quoted(text) + " (auto, sim, hip, cuda)");
  }
  return std::string(text);
}

int readInt(const FlagSpec& spec, std::string_view text) {
  return static_cast<int>(parseIntInRange(spec.name, text, spec.min, spec.max.value));
}
bool readOnOff(const FlagSpec& spec, std::string_view text) { return parseOnOff(spec.name, text); }
std::string readBackend(const FlagSpec& spec, std::string_view text) { return parseBackendName(spec.name, text); }
std::string readText(const FlagSpec&, std::string_view text) { return std::string(text); }

}  // namespace sdma::cli
