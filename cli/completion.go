package cli

import "github.com/spf13/cobra"

// addCompletion adds cobra's "completion bash|zsh|fish|powershell" command to
// root, with an unknown shell a usage error (cobra would print help and exit 0).
func (a *app) addCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args = args(cobra.NoArgs)
			c.RunE = a.run(func(cmd *cobra.Command, _ []string) error { return cmd.Help() })
		}
	}
}
