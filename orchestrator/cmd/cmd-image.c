/*
 * cmd-image.c: `devnet image build [--binary PATH] [--tag TAG]`: build
 * the container image the docker and swarm providers run when a variant
 * names no `image:`, from local binaries, with no registry and no
 * network (image.h says what goes in).  Not here: the packing itself
 * (image.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/spawn.h"
#include "cmd/cmd.h"
#include "sys/docker.h"
#include "provider/image.h"
#include "xalloc.h"

static int
cmd_image_exec(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "binary", required_argument, NULL, 'b' },
		{ "tag", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*binary = spawn_default_node_binary(), *tag = NULL;
	char		*deftag = NULL, *cause = NULL, *version = NULL;
	char		*abs = NULL;
	int		 c, rc = 1;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			binary = optarg;
			break;
		case 't':
			tag = optarg;
			break;
		case 'h':
			cmd_usage(&cmd_image_entry, stdout);
			return (0);
		default:
			return (cmd_bad_option(&cmd_image_entry,
			    argv[optind - 1]));
		}
	}
	if (optind != argc - 1 || strcmp(argv[optind], "build") != 0) {
		cmd_error("image: say `devnet image build` (see 'devnet "
		    "image --help')");
		return (CMD_EXIT_USAGE);
	}
	if ((abs = realpath(binary, NULL)) == NULL) {
		cmd_error("node binary '%s' not found (--binary PATH)",
		    binary);
		return (1);
	}
	if (dk_engine_check(&version, &cause) != 0)
		goto out;
	if (tag == NULL &&
	    (tag = deftag = image_default_tag(abs, &cause)) == NULL)
		goto out;
	printf("building %s (Docker %s) from:\n", tag, version);
	if (image_build(abs, tag, stdout, &cause) != 0)
		goto out;
	printf("built %s\n", tag);
	rc = 0;
out:
	if (cause != NULL)
		cmd_error("%s", cause);
	free(cause);
	free(version);
	free(deftag);
	free(abs);
	return (rc);
}

const struct cmd_entry cmd_image_entry = {
	.name = "image",
	.usage = "image build [--binary PATH] [--tag TAG]",
	.summary = "build the node container image from local binaries",
	.help =
"  --binary PATH  the node binary (default: devnet-node beside devnet)\n"
"  --tag TAG      the image's tag (default devnet-node:<hash of the\n"
"                 binaries>, the one `provider: docker` looks for)\n"
"  --help         this text\n"
"\nPacks the node binary, devnet-probe and libdevnet-alloc.so when they\n"
"were built, and the shared libraries ldd lists for them, into a FROM\n"
"scratch image on the local Docker engine: no registry, no network.\n"
"`devnet run` with provider docker builds it itself when it is missing.\n"
"Reference: docs/providers.md.\n",
	.exec = cmd_image_exec,
};
