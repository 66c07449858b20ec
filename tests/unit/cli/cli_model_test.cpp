// The command line as data (cli_model.hpp) and what the completion scripts make of a registry's
// benchmarks: a host-only build has none, so the end-to-end test (completion_bash_test.sh) sees
// an empty list there; here a made-up registry goes through the generated bash script.

#include <fstream>

#include <gtest/gtest.h>

#include "gpuspec/cli/cli_model.hpp"
#include "gpuspec/cli/completion_script.hpp"
#include "gpuspec/cli/man_page.hpp"
#include "run_process.hpp"

namespace gpuspec::cli {
namespace {

using words = std::vector<std::string>;

TEST(ChoicesOf, ReadsSetsAndMapsAndNothingElse) {
  EXPECT_EQ(choices_of("TEXT:{table,md,json}"), (words{"table", "md", "json"}));
  EXPECT_EQ(choices_of("TEXT:{a->1,b->2}"), (words{"a", "b"}));
  EXPECT_TRUE(choices_of("FILE").empty());
  EXPECT_TRUE(choices_of("INT:INT in [1 - 4096]").empty());
}

TEST(BenchmarkWords, EveryIdAndEveryDottedPrefixOnce) {
  const std::vector<host::benchmark_listing> listings{{"memory.stream.triad", "", {}, ""},
                                                      {"memory.stream.copy", "", {}, ""},
                                                      {"gemm", "", {}, ""}};
  EXPECT_EQ(benchmark_words(listings), (words{"gemm", "memory.", "memory.stream.",
                                              "memory.stream.copy", "memory.stream.triad"}));
  EXPECT_TRUE(benchmark_words({}).empty());
}

/// A small command line with each kind of argument the model tells apart.
struct sample_cli {
  CLI::App app{"sample"};
  std::string file, format, bench, hidden_value, serial;
  std::vector<std::string> reports;
  bool json = false;

  sample_cli() {
    auto* cmd = app.add_subcommand("check", "Judge");
    cmd->add_option("REPORT", reports, "Reports")->required()->type_name(value_name::file);
    cmd->add_option("--specs", file, "Spec table")->type_name(value_name::file);
    cmd->add_option("--format", format, "Output")->check(CLI::IsMember({"table", "json"}));
    cmd->add_option("--filter", bench, "Benchmarks")->type_name(value_name::benchmark);
    cmd->add_flag("--json", json, "JSON");
    cmd->add_option("--secret", hidden_value, "Not for operators")->group("");
    cmd->add_option_group("which")->add_option("--serial", serial, "A serial");
    app.add_subcommand("__internal", "Hidden")->group("");
  }
};

const argument_spec& option_named(const command_spec& c, const std::string& name) {
  for (const auto& o : c.options)
    if (o.names.back() == name)
      return o;
  throw std::runtime_error("no option " + name);
}

TEST(DescribeCommandLine, KindsFlagsGroupsAndHiddenOnes) {
  sample_cli cli;
  const auto root = describe_command_line(cli.app);
  ASSERT_EQ(root.subcommands.size(), 1U); // __internal is hidden
  const auto& check = root.subcommands[0];
  EXPECT_EQ(check.display_path(), "gpuspec check");
  EXPECT_EQ(option_named(check, "--specs").kind, value_kind::file);
  EXPECT_EQ(option_named(check, "--filter").kind, value_kind::benchmark);
  EXPECT_EQ(option_named(check, "--format").kind, value_kind::choice);
  EXPECT_EQ(option_named(check, "--format").choices, (words{"table", "json"}));
  EXPECT_TRUE(option_named(check, "--specs").takes_value);
  // A flag takes no value: completion must not swallow the word after it.
  EXPECT_FALSE(option_named(check, "--json").takes_value);
  EXPECT_FALSE(option_named(check, "--help").takes_value);
  EXPECT_NO_THROW((void)option_named(check, "--serial")); // from the option group
  EXPECT_THROW((void)option_named(check, "--secret"), std::runtime_error);
  ASSERT_EQ(check.positionals.size(), 1U);
  EXPECT_EQ(check.positionals[0].kind, value_kind::file);
  EXPECT_TRUE(check.positionals[0].many);
}

class BenchmarkCompletion : public testing::scratch_dir_test {};

TEST_F(BenchmarkCompletion, BashOffersTheRegistrysIdsAndPrefixes) {
  sample_cli cli;
  const completion_words registry{
      benchmark_words({{"memory.stream.triad", "", {}, ""}, {"memory.stream.copy", "", {}, ""}})};
  std::ofstream(m_dir / "gpuspec.bash")
      << bash_completion_script(describe_command_line(cli.app), registry);
  auto complete = [&](const std::string& word) {
    return testing::run_in(m_dir, "bash --norc --noprofile -c 'source ./gpuspec.bash; "
                                  "COMP_WORDS=(gpuspec check --filter \"$0\"); COMP_CWORD=3; "
                                  "_gpuspec; printf \"%s\\n\" \"${COMPREPLY[@]}\"' '" +
                                      word + "'")
        .out;
  };
  EXPECT_EQ(complete(""), "memory.\nmemory.stream.\nmemory.stream.copy\nmemory.stream.triad\n");
  EXPECT_EQ(complete("memory.stream.t"), "memory.stream.triad\n");
  EXPECT_EQ(complete("gemm"), "\n"); // none: printf prints one empty line for no words
}

TEST_F(BenchmarkCompletion, ZshOffersThemAsWell) {
  if (testing::run_in(m_dir, "command -v zsh >/dev/null").exit_code != 0)
    GTEST_SKIP() << "no zsh installed";
  sample_cli cli;
  const completion_words registry{
      benchmark_words({{"memory.stream.triad", "", {}, ""}, {"memory.stream.copy", "", {}, ""}})};
  std::ofstream(m_dir / "_gpuspec")
      << zsh_completion_script(describe_command_line(cli.app), registry);
  // zsh_complete.zsh: a zsh in a pseudo-terminal, a Tab typed, the matches printed.
  auto complete = [&](const std::string& line) {
    return testing::run_in(m_dir, "HOME=. timeout 20 zsh -f '" GPUSPEC_ZSH_COMPLETE
                                  "' ./_gpuspec ./dump '" +
                                      line + "' | sed '/^$/d' | LC_ALL=C sort")
        .out;
  };
  EXPECT_EQ(complete("gpuspec check --filter "),
            "memory.\nmemory.stream.\nmemory.stream.copy\nmemory.stream.triad\n");
  EXPECT_EQ(complete("gpuspec check --filter memory.stream.t"), "memory.stream.triad\n");
}

TEST(ManPages, OnePerCommandAndFlagsWithoutValues) {
  sample_cli cli;
  const auto pages = man_pages(describe_command_line(cli.app), {"0.0.0", ""});
  ASSERT_EQ(pages.size(), 2U);
  EXPECT_EQ(pages[0].file_name, "gpuspec.1");
  EXPECT_EQ(pages[1].file_name, "gpuspec-check.1");
  EXPECT_NE(pages[1].text.find("\\fB\\-\\-specs\\fR \\fIFILE\\fR"), std::string::npos);
  EXPECT_NE(pages[1].text.find(".TP\n\\fB\\-\\-json\\fR\n"), std::string::npos);
  EXPECT_EQ(pages[1].text.find("secret"), std::string::npos);
}

} // namespace
} // namespace gpuspec::cli
