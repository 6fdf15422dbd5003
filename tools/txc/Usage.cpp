//===- Usage.cpp - Usage errors of the txc command line -------------------===//
#include "Usage.h"

#include "llvm/ADT/STLExtras.h"

using namespace txc;

std::optional<DiagnosticFormat>
txc::parseDiagnosticFormat(llvm::StringRef name) {
  if (name == "text")
    return DiagnosticFormat::Text;
  if (name == "json")
    return DiagnosticFormat::Json;
  if (name == "sarif")
    return DiagnosticFormat::Sarif;
  return std::nullopt;
}

DiagnosticFormat txc::diagnosticsFormatIn(int argc, char **argv) {
  DiagnosticFormat format = DiagnosticFormat::Text;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef word = argv[i];
    if (word == "--")
      break;
    std::optional<DiagnosticFormat> given;
    if (word == "--diagnostics-format" && i + 1 < argc)
      given = parseDiagnosticFormat(argv[++i]);
    else if (word.consume_front("--diagnostics-format="))
      given = parseDiagnosticFormat(word);
    if (given)
      format = *given;
  }
  return format;
}

/// "txc", "txc compile", "txc cache stats".
static std::string commandPath(const CLI::App &command) {
  std::string path = command.get_name();
  for (const CLI::App *parent = command.get_parent(); parent;
       parent = parent->get_parent())
    path = parent->get_name() + " " + path;
  return path;
}

static std::vector<CLI::App *> subcommandsOf(CLI::App &command) {
  return command.get_subcommands([](CLI::App *) { return true; });
}

static std::string quotedList(const std::vector<std::string> &names) {
  std::string text;
  for (const std::string &name : names)
    text += (text.empty() ? "'" : ", '") + name + "'";
  return text;
}

static void reportUsage(DiagnosticEngine &diags, const std::string &message,
                        const std::string &note) {
  diags.error(DiagCategory::Usage, "usage", "", Loc(), message).addNote(note);
}

CLI::App *txc::findCommand(CLI::App &app, int argc, char **argv,
                           DiagnosticEngine &diags) {
  CLI::App *command = &app;
  for (int i = 1;; ++i) {
    std::vector<CLI::App *> subcommands = subcommandsOf(*command);
    if (subcommands.empty())
      return command;
    llvm::StringRef word = i < argc ? argv[i] : "";
    if (word == "-h" || word == "--help" || word == "--version")
      return command;
    auto named = llvm::find_if(subcommands, [&](CLI::App *subcommand) {
      return subcommand->get_name() == word;
    });
    if (named != subcommands.end()) {
      command = *named;
      continue;
    }
    std::vector<std::string> names;
    for (CLI::App *subcommand : subcommands)
      names.push_back(subcommand->get_name());
    bool top = command == &app;
    std::string of = top ? "" : " of '" + commandPath(*command) + "'";
    std::string message =
        word.empty() ? (top ? "no command given"
                            : "'" + commandPath(*command) + "' needs a command")
        : word.starts_with("-")
            ? "expected a command" + of + " before '" + word.str() +
                  "' (options follow the command)"
            : "unknown command '" + word.str() + "'" + of +
                  didYouMean(word, names);
    reportUsage(diags,
                message + "; the commands" + of + " are " + quotedList(names),
                "'" + commandPath(*command) + " --help' describes them");
    return nullptr;
  }
}

/// The first word after the command that looks like an option the command
/// does not have, as a message with the closest option; nullopt if none.
static std::optional<std::string> unknownOption(CLI::App &command, int argc,
                                                char **argv) {
  int first = 1;
  for (const CLI::App *parent = command.get_parent(); parent;
       parent = parent->get_parent())
    ++first;
  for (int i = first; i < argc; ++i) {
    llvm::StringRef word = argv[i];
    if (word == "--")
      break;
    if (!word.starts_with("-") || word == "-")
      continue;
    bool isLong = word.starts_with("--");
    // `--name=value`, and `-O3`: a short option with its value attached.
    llvm::StringRef name = isLong ? word.split('=').first : word.take_front(2);
    if (const CLI::Option *option = command.get_option_no_throw(name.str())) {
      // Its value is the next word, and may start with '-' (--features
      // -avx2).
      if (option->get_type_size_max() > 0 && name.size() == word.size())
        ++i;
      continue;
    }
    std::vector<std::string> bare, dashed;
    for (const CLI::Option *option : command.get_options()) {
      for (const std::string &longName : option->get_lnames()) {
        bare.push_back(longName);
        dashed.push_back("--" + longName);
      }
      for (const std::string &shortName : option->get_snames()) {
        bare.push_back(shortName);
        dashed.push_back("-" + shortName);
      }
    }
    std::string best = nearestName(name.ltrim('-'), bare);
    std::string hint;
    if (!best.empty())
      hint = " (did you mean '" +
             dashed[llvm::find(bare, best) - bare.begin()] + "'?)";
    return "unknown option '" + name.str() + "' for '" + commandPath(command) +
           "'" + hint;
  }
  return std::nullopt;
}

void txc::reportParseError(const CLI::ParseError &error, CLI::App &command,
                           int argc, char **argv, DiagnosticEngine &diags) {
  std::optional<std::string> unknown;
  if (dynamic_cast<const CLI::ExtrasError *>(&error))
    unknown = unknownOption(command, argc, argv);
  reportUsage(diags, unknown ? *unknown : std::string(error.what()),
              "'" + commandPath(command) + " --help' lists the options");
}
