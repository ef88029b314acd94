package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vfskit/vfskit/vfs"
)

// Stdio is where a command reads its input and writes its output and
// diagnostics.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// Terminal says whether Err is an interactive terminal, so progress bars are
	// drawn. Nil means: detect it (Err is an *os.File connected to a terminal).
	Terminal func() bool
	// OutTerminal says whether Out is an interactive terminal, so names in
	// text output are quoted where they hold control characters or invalid
	// UTF-8 (--quoting-style shell-escape) rather than written as they are.
	// Nil means: detect it (Out is an *os.File connected to a terminal).
	OutTerminal func() bool
}

// app is the state one command line runs with.
type app struct {
	stdio    Stdio
	log      *slog.Logger
	logLevel string
	// quoting is how text output writes names (--quoting-style, or by default
	// shell-escape on a terminal and literal otherwise); quotingFlag the flag.
	quoting     quotingStyle
	quotingFlag string
	cfg         config
	reg         *vfs.Registry // the schemes this command line reaches (see registry)
	factories   []vfs.Factory // of each of cfg.sets, once the flags are parsed (setupSchemes)
	// ran is set once a command's RunE starts: errors before that point come from
	// cobra (flags, arguments, unknown command) and are usage errors.
	ran bool
	// several are the arguments of a cp with several sources (SRC... DIR),
	// or of an mv's from the source being moved on, for the command that
	// finishes it after an interrupt.
	several []location
}

// Run executes one vfskit command line (args without the program name) and
// returns its exit status: ExitOK, ExitFailure, ExitUsage, or ExitInterrupted
// when ctx was cancelled (Ctrl-C) before the command succeeded. Errors are printed
// to stdio.Err prefixed with "vfskit: ", one per line.
//
// The first write to stdio.Out that fails ends the command: later writes fail
// at once, commands that walk many entries stop, and Run returns ExitFailure
// with that error as its only message ("vfskit: write error on standard
// output: no space left on device"), or with no message when it is a broken
// pipe (EPIPE: the reader went away), as coreutils do. (The vfskit binary
// writing to a closed pipe is stopped by SIGPIPE before that, as coreutils
// are.)
//
// The command line reaches file:// (and plain paths), memory:// and the schemes
// opts add, through a vfs.Registry of its own: Run changes neither vfs's
// default registry nor any backend's process-wide settings.
func Run(ctx context.Context, args []string, stdio Stdio, opts ...Option) int {
	if stdio.In == nil {
		stdio.In = strings.NewReader("")
	}
	if stdio.Out == nil {
		stdio.Out = io.Discard
	}
	if stdio.Err == nil {
		stdio.Err = io.Discard
	}
	if stdio.OutTerminal == nil {
		out := stdio.Out
		stdio.OutTerminal = func() bool { return isTerminal(out) }
	}
	out := &output{w: stdio.Out}
	stdio.Out = out
	a := &app{stdio: stdio, cfg: newConfig(opts)}
	reg, err := a.registry()
	if err != nil {
		printError(stdio.Err, err)
		return ExitFailure
	}
	a.reg = reg
	root := a.rootCommand()
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if oe := outputFailure(errors.Join(err, out.failed())); oe != nil {
		// Once standard output fails, that is the one thing to say (nothing
		// for a broken pipe, as coreutils), whatever the command made of it.
		if !brokenPipe(oe) {
			printError(stdio.Err, oe)
		}
		return ExitFailure
	}
	if err == nil {
		return ExitOK
	}
	status := exitStatus(err)
	if !a.ran {
		status = ExitUsage
	}
	say := untold(err)
	if ctx.Err() != nil { // Ctrl-C (or SIGTERM)
		status = ExitInterrupted
		if say != nil {
			say = fmt.Errorf("interrupted: %w", say)
		}
	}
	if say != nil {
		printError(stdio.Err, say)
	}
	if status == ExitUsage && cmd != nil {
		fmt.Fprintf(stdio.Err, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return status
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "vfskit",
		Short: "Files and Flink-style checkpoints on any file system: local, S3, GCS, Azure, memory",
		Long: `vfskit works with files on every file system it serves, addressed by URI:

` + schemeHelp(a.cfg, a.reg.Schemes()) + `
This binary serves the schemes ` + strings.Join(a.reg.Schemes(), ", ") + `.

It also lists, inspects, verifies, moves and cleans up checkpoints and
savepoints, Flink's and those of vfskit's checkpoint storage (a Go port of
Apache Flink's), and runs a demo job that shows both.

Exit status: 0 on success, 1 when the operation failed, 2 for a usage error
(no command, unknown command or flag, wrong arguments, a bad URI or an unknown
scheme), 130 when interrupted (Ctrl-C).

Shell completion: vfskit completion bash|zsh|fish|powershell --help.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.setup()
		},
		RunE:    a.noCommand,
		Version: version(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetIn(a.stdio.In)
	root.SetOut(a.stdio.Out)
	root.SetErr(a.stdio.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr(err) })
	root.SetHelpCommand(a.helpCommand(root))

	pf := root.PersistentFlags()
	pf.StringVar(&a.logLevel, "log-level", "warn", "log level on stderr: debug, info, warn or error")
	pf.StringVar(&a.quotingFlag, "quoting-style", "", "how text output writes names: literal, shell-escape, escape or c (default: shell-escape when standard output is a terminal, literal otherwise)")
	for _, set := range a.cfg.sets {
		if set.Flags != nil {
			set.Flags(pf)
		}
	}

	root.AddCommand(
		a.lsCommand(),
		a.statCommand(),
		a.catCommand(),
		a.cpCommand(),
		a.mvCommand(),
		a.rmCommand(),
		a.mkdirCommand(),
		a.cleanTempCommand(),
		a.checkpointsCommand(),
		a.demoCommand(),
	)
	a.addCompletion(root)
	return root
}

// helpCommand is "vfskit help [command]": cobra's, except that an unknown
// topic is a usage error (exit 2) rather than a success.
func (a *app) helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  `Help shows the help of any command: vfskit help checkpoints gc.`,
		RunE: a.run(func(_ *cobra.Command, argv []string) error {
			cmd, rest, err := root.Find(argv)
			if err != nil || len(rest) > 0 {
				return usageErr(fmt.Errorf("unknown help topic %q: run 'vfskit --help' for the commands", strings.Join(argv, " ")))
			}
			return cmd.Help()
		}),
	}
}

// setup runs before every command: logging, and the factories of the schemes
// WithSchemes added (which read their flags).
func (a *app) setup() error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(a.logLevel)); err != nil {
		return usageErr(fmt.Errorf("invalid --log-level %q: expected debug, info, warn or error", a.logLevel))
	}
	a.quoting = quoteLiteral
	switch {
	case a.quotingFlag != "":
		q, err := parseQuotingStyle(a.quotingFlag)
		if err != nil {
			return err
		}
		a.quoting = q
	case a.outTerminal():
		a.quoting = quoteShellEscape
	}
	a.log = slog.New(vfs.RedactingHandler(slog.NewTextHandler(a.stdio.Err, &slog.HandlerOptions{Level: level})))
	return a.setupSchemes()
}

// run wraps a command body: it records that the command started (so its errors
// are classified by exitStatus rather than treated as usage errors).
func (a *app) run(f func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a.ran = true
		return f(cmd, args)
	}
}

// args wraps a cobra argument validator so its errors are usage errors.
func args(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		return usageErr(v(cmd, a))
	}
}

// noCommand runs for "vfskit" without a command: usage on standard error and
// a usage error (exit 2), so a script that lost its command does not pass.
func (a *app) noCommand(cmd *cobra.Command, _ []string) error {
	fmt.Fprint(a.stdio.Err, cmd.UsageString())
	return usageErr(errors.New("no command given"))
}
