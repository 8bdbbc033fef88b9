"""%%cann_profile and the line magics.

How a profiled cell runs (so that tracebacks, Out[], history and variables behave as without the
magic, and IPython's own machinery is not profiled):

1. An input transformer sees a cell starting with ``%%cann_profile ARGS``, parses ARGS and replaces
   the magic line with a comment (line numbers in tracebacks stay those of the notebook).
2. An AST transformer rewrites that cell's code into::

       try:
           __cann_nb__.begin()                   # starts the collectors
           <the cell's statements>               # looped for --warmup/--repeat
           __cann_nb__.keep(<last expression>)   # when the cell ends in an expression
           __cann_nb__.stop()                    # stops the collectors
       except BaseException:
           __cann_nb__.fail()                    # stop collectors before IPython formats the traceback
           raise
       __cann_nb__.end()                         # returns the kept value -> Out[n]

   IPython compiles and runs top-level statements one by one; keeping start and stop inside one
   statement keeps IPython's compile steps between statements out of the profile.

3. IPython runs it as any cell; the traceback is the user's own. A post_run_cell hook then converts
   the collected data and displays it while the store writes it on its writer thread; the hook
   returns once the files are on disk (the write overlaps the display instead of adding to it).
   Errors there are reported in one line.

If the transformers are bypassed (``run_cell_magic`` called directly), the cell magic itself runs the
cell through ``shell.run_cell`` under the same session.
"""

from __future__ import annotations

import ast
import os
import sys
import traceback

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from ..collect import flags
from ..collect import auto
from ..collect import runner
from ..collect.session import CollectionSession
from ..collect.flags import PROFILE_FLAGS
from ..store import Session

RUNTIME_NAME = "__cann_nb__"
LOOP_VAR = "__cann_nb_run__"
MAGIC = "%%cann_profile"


def profile_flags(fn):
    """magic_arguments decorators for the shared PROFILE_FLAGS, plus the magic's own --no-display."""
    fn = argument("--items", default=None, metavar="VAR",
                  help="with --sweep: the variable that counts items per run (time per item, throughput); "
                       "default: a swept batch_size/batch/bs/n_items variable of positive integers")(fn)
    fn = argument("--sweep", action="append", default=None, metavar="VAR=V1,V2",
                  help="run the cell once per value (repeatable: every combination), VAR set in the namespace; "
                       "shows a scaling table with the best configuration marked (see cann_nb.frontends.sweep)")(fn)
    fn = argument("--no-display", dest="display", action="store_false", default=True,
                  help="store the profile, show nothing")(fn)
    for flags, kwargs in reversed(PROFILE_FLAGS):
        fn = argument(*flags, **kwargs)(fn)
    return magic_arguments()(fn)


class _Run:
    """State of one profiled cell between begin() and the post_run_cell hook."""

    def __init__(self, args, session: CollectionSession):
        self.args = args
        self.session = session
        self.value = None
        self.finished = False


@magics_class
class CannNbMagics(Magics):
    def __init__(self, shell, runtime: "Runtime"):
        super().__init__(shell)
        self.runtime = runtime

    @profile_flags
    @cell_magic
    def cann_profile(self, line, cell):
        """Profile a cell with real collectors, store the profile and show a summary.

        Example::

            %%cann_profile -n cnn --shapes
            model(x)
        """
        args = self.runtime.parse(line)
        if args.sweep:  # the input transformer leaves sweep cells to this magic
            from ..errors import CannNbError
            from .sweep import run_in_shell

            try:
                return run_in_shell(self.runtime, args, cell)
            except CannNbError as exc:
                raise UsageError(str(exc)) from None
        # Reached only when the input transformer was bypassed (e.g. run_cell_magic called directly).
        if args.collector_names is None:
            try:
                args.collector_names = auto.for_cell(ast.parse(cell), self.shell.user_ns)
            except SyntaxError:
                pass
        self.runtime.begin(args)
        try:
            result = self.shell.run_cell(cell, store_history=False)
        except BaseException:
            self.runtime.fail()
            raise
        if result.error_in_exec is not None:
            self.runtime.fail(result.error_in_exec)
        self.runtime.end()
        self.runtime.finalize()

    @magic_arguments()
    @argument("path", help="Kineto trace (.json/.json.gz), Ascend *_ascend_pt / PROF_* folder or .db, a folder "
              "of ranks, or a stored profile directory")
    @argument("-n", "--name", default=None, help="profile name in the store (default: from the path)")
    @argument("-o", "--output", default=None, help="store directory (default: $CANN_NB_DIR or ./profile_results)")
    @argument("--no-store", dest="store", action="store_false", default=True, help="load only, do not store")
    @line_magic
    def cann_load(self, line):
        """Import a profile recorded elsewhere, store it and return it (a Profile, or a group of ranks)."""
        args = parse_argstring(self.cann_load, line)
        return self.runtime.load(args)

    @magic_arguments()
    @argument("base", help="the profile before: a name in the store (NAME, NAME@k) or a path")
    @argument("new", help="the profile after")
    @argument("-o", "--output", default=None, help="store directory (default: $CANN_NB_DIR or ./profile_results)")
    @argument("--test", choices=("welch", "mannwhitney"), default="welch",
              help="significance test on per-step samples (default welch)")
    @argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    @argument("--no-record", dest="record", action="store_false", default=True,
              help="do not add resolved findings to the store's gain track record")
    @line_magic
    def cann_compare(self, line):
        """Compare two profiles: per-op deltas (delta = new - base, + is slower), buckets, end-to-end,
        memory and findings; shows the diff view. Returns a cann_nb.analyze.comparison.Comparison."""
        from ..errors import CannNbError
        from .compare import compare

        args = parse_argstring(self.cann_compare, line)
        try:
            return compare(args.base.strip("'\""), args.new.strip("'\""), store=self.runtime.store(args.output),
                           test=args.test, alpha=args.alpha, record=None if args.record else False)
        except CannNbError as exc:
            raise UsageError(str(exc)) from None

    @magic_arguments()
    @argument("group", help="a stored group (NAME or its directory) or a folder of ranks")
    @argument("-o", "--output", default=None, help="store directory (default: $CANN_NB_DIR or ./profile_results)")
    @argument("--scheduler", default=None, metavar="ADDRESS",
              help="run the per-rank work on the Dask cluster at ADDRESS (tcp://HOST:PORT)")
    @line_magic
    def cann_cluster(self, line):
        """Analyse a group of ranks across its ranks: per-rank table, stragglers (robust z-score) and why,
        collective skew and comm wait; shows the cluster view. Returns a ClusterResult (DataFrames)."""
        from ..errors import CannNbError
        from .cluster import cluster

        args = parse_argstring(self.cann_cluster, line)
        try:
            return cluster(args.group.strip("'\""), store=self.runtime.store(args.output), scheduler=args.scheduler)
        except CannNbError as exc:
            raise UsageError(str(exc)) from None

    @magic_arguments()
    @argument("-o", "--output", default=None, help="store directory (default: $CANN_NB_DIR or ./profile_results)")
    @argument("--versions", action="store_true", help="include older versions (NAME@k)")
    @line_magic
    def cann_list(self, line):
        """The profiles in the session store as a DataFrame."""
        args = parse_argstring(self.cann_list, line)
        return self.runtime.store(args.output).list(versions=args.versions)

    @magic_arguments()
    @argument("name", nargs="?", default=None,
              help="the profile: a variable holding one, a name in the store (NAME, NAME@k) or a path; "
                   "default: the last profiled cell")
    @argument("-o", "--output", default=None, metavar="FILE.html", help="where to write it (default: NAME.html)")
    @argument("--against", default=None, metavar="BASE", help="compare with this profile (the baseline)")
    @argument("--title", default=None, help="the report's title (default: the profile's name)")
    @argument("--store", default=None, help="store directory (default: $CANN_NB_DIR or ./profile_results)")
    @line_magic
    def cann_report(self, line):
        """Write a self-contained HTML report (opens offline, from disk, in any browser)."""
        from .report_magic import run

        run(self.runtime, self.shell, parse_argstring(self.cann_report, line))


class _CellRewriter(ast.NodeTransformer):
    """Wraps a profiled cell's module in begin/try/except/end (see the module docstring)."""

    def __init__(self, runtime: "Runtime"):
        self.runtime = runtime

    def visit_Module(self, node: ast.Module):
        args = self.runtime.pending
        if args is None:
            return node
        self.runtime.pending = None
        self.runtime.armed = args
        try:
            if args.collector_names is None:
                args.collector_names = auto.for_cell(node, self.runtime.shell.user_ns)
            return rewrite(node, loop=args.repeat > 1 or args.warmup > 0)
        except Exception:  # IPython drops a transformer that raises; keep the cell runnable instead
            self.runtime.armed = None
            traceback.print_exc()
            return node


def _call(method: str, *args) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name(RUNTIME_NAME, ast.Load()), method, ast.Load()), list(args), [])


def rewrite(module: ast.Module, loop: bool) -> ast.Module:
    body = list(module.body)
    if body and isinstance(body[-1], ast.Expr):
        last = body.pop()
        keep = _call("keep", last.value)
        for node in (keep, keep.func, keep.func.value):  # on the user's line: it evaluates the user's value
            ast.copy_location(node, last.value)
        body.append(ast.copy_location(ast.Expr(keep), last))
    if not body:
        body = [ast.Pass()]
    if loop:
        body = [ast.For(ast.Name(LOOP_VAR, ast.Store()), _call("runs"), body, [])]
    body = [ast.Expr(_call("begin")), *body, ast.Expr(_call("stop"))]
    handler = ast.ExceptHandler(ast.Name("BaseException", ast.Load()), None,
                                [ast.Expr(_call("fail")), ast.Raise()])
    new = [ast.Try(body, [handler], [], []), ast.Expr(_call("end"))]
    # the profiler's own statements sit on line 1, the magic line (now a comment), so that neither a
    # traceback nor the line spans of the Python tracer put them on a line of the user's
    for node in ast.walk(ast.Module(new, [])):
        if "lineno" in node._attributes and not hasattr(node, "lineno"):
            node.lineno, node.end_lineno, node.col_offset, node.end_col_offset = 1, 1, 0, 0
    module.body = new
    return module


class Runtime:
    """Everything the extension adds to one shell; ``unload()`` removes all of it."""

    def __init__(self, shell):
        self.shell = shell
        self.magics = CannNbMagics(shell, self)
        self.rewriter = _CellRewriter(self)
        self.pending = None   # args parsed by the input transformer, waiting for the AST transformer
        self.armed = None     # args of the cell about to run (rewritten)
        self.run: _Run | None = None
        self.last = None      # the last Profile made
        self._stores: dict[str, Session] = {}
        transform = self._transform  # a plain function, so it can carry IPython's flag
        self.transformer = lambda lines: transform(lines)
        self.transformer.has_side_effects = True  # keep IPython's is-complete check from calling it

    # -- install / remove ---------------------------------------------------------------------
    def install(self) -> None:
        os.environ.setdefault("KINETO_LOG_LEVEL", "99")  # before torch's first profile
        self.shell.register_magics(self.magics)
        self.shell.input_transformers_cleanup.append(self.transformer)
        self.shell.ast_transformers.append(self.rewriter)
        self.shell.events.register("post_run_cell", self.post_run_cell)
        self.shell.user_ns[RUNTIME_NAME] = self
        self.shell.user_ns_hidden[RUNTIME_NAME] = self

    def unload(self) -> None:
        if self.run is not None:
            self.run.session.close()
            self.run = None
        for kind in ("cell", "line"):
            registry = self.shell.magics_manager.magics[kind]
            for name, fn in list(registry.items()):
                if getattr(fn, "__self__", None) is self.magics:
                    del registry[name]
        self.shell.magics_manager.registry.pop(type(self.magics).__name__, None)
        for lst, item in ((self.shell.input_transformers_cleanup, self.transformer),
                          (self.shell.ast_transformers, self.rewriter)):
            while item in lst:
                lst.remove(item)
        try:
            self.shell.events.unregister("post_run_cell", self.post_run_cell)
        except ValueError:
            pass
        for store in self._stores.values():   # a write left by an interrupted flush
            store.flush()
        self.shell.user_ns.pop(RUNTIME_NAME, None)
        self.shell.user_ns_hidden.pop(RUNTIME_NAME, None)

    # -- parsing ------------------------------------------------------------------------------
    def parse(self, line: str):
        args = parse_argstring(self.magics.cann_profile, line)
        try:
            flags.check(args)
        except flags.FlagError as exc:
            raise UsageError(str(exc)) from None
        return args

    def _transform(self, lines: list[str]) -> list[str]:
        if not lines:
            return lines
        first = lines[0]
        if not (first.startswith(MAGIC) and (len(first) == len(MAGIC) or first[len(MAGIC)].isspace())):
            return lines
        arg_line = first[len(MAGIC):].strip()
        if arg_line.endswith("?"):
            return lines  # help: let IPython handle it
        try:
            args = self.parse(arg_line)
        except UsageError:
            return lines  # the real cell magic reports the error with IPython's usual formatting
        if args.sweep:
            return lines  # a sweep runs the cell several times: the cell magic drives it
        self.pending = args
        return ["# " + first.rstrip("\n") + "\n"] + lines[1:]

    # -- called from the rewritten cell ------------------------------------------------------------
    def begin(self, args=None) -> None:
        args = args or self.armed
        self.armed = None
        if self.run is not None:  # a previous run never reached post_run_cell
            self.run.session.close()
        number = getattr(args, "cell_number", None) or self.cell_number()
        name = args.name or f"cell_{number}"
        options = flags.options(args)
        source = {"kind": "cell", "execution_count": number, "cell": self._raw_cell()}
        if getattr(args, "sweep_point", None):
            source["sweep"] = args.sweep_point
        session = CollectionSession(name, args.collector_names, options, source)
        self.run = _Run(args, session)
        if args.warmup == 0:  # a cell without the loop starts here; with it, runs() finds it running
            session.start(adopt_caller=True)

    def runs(self):
        """The loop of a --warmup/--repeat cell: collect.runner's loop, the one the ``run`` command uses
        (returned, not wrapped: the cell's frame stays its caller for the Python tracer's adoption)."""
        return runner.runs(self.run.session, self.run.args.warmup, self.run.args.repeat, adopt_caller=True)

    def keep(self, value):
        if self.run is not None:
            self.run.value = value

    def fail(self, exc: BaseException | None = None) -> None:
        if exc is None:
            exc = sys.exc_info()[1]
        if self.run is None:
            return
        interrupted = isinstance(exc, KeyboardInterrupt)
        self.run.session.stop("interrupted" if interrupted else "failed",
                              f"{type(exc).__name__}: {exc}" if exc is not None else None)

    def stop(self) -> None:
        if self.run is not None:
            self.run.session.stop()

    def end(self):
        run = self.run
        if run is None:
            return None
        run.session.stop()
        self.shell.user_ns.pop(LOOP_VAR, None)
        value, run.value = run.value, None
        return value

    # -- after the cell --------------------------------------------------------------------------
    def post_run_cell(self, result=None) -> None:
        self.pending = self.armed = None
        if self.run is None:
            return
        self.shell.user_ns.pop(LOOP_VAR, None)
        try:
            self.finalize()
        except KeyboardInterrupt:
            print("cann_nb: interrupted while saving the profile; nothing was stored", file=sys.stderr)

    def finalize(self) -> None:
        run, self.run = self.run, None
        if run is None:
            return
        session = run.session
        try:
            session.stop()
            profile = session.finish()
        except Exception as exc:
            session.close()
            print(f"cann_nb: could not build the profile {session.name!r}: {exc!r}", file=sys.stderr)
            return
        profile.meta["options"].update(repeat=run.args.repeat, warmup=run.args.warmup)
        self.last = profile
        store = self.store(run.args.output)
        failed_before = len(store.write_errors)
        queued = False
        try:
            store.add(profile, background=True, quiet=True)     # written while the view is built
            queued = True
        except Exception as exc:  # nothing was queued (a name the store refuses, say)
            _not_stored(profile, f"cann_nb: {exc}")
        view = None
        try:
            if run.args.display:
                view = build_view(profile)
        finally:
            # the files are on disk when the cell is done (a script reading the store right after
            # the cell, or nbclient's next step, finds them); the write overlapped building the view.
            # Only a write that landed says "stored".
            if queued and self._landed(store, failed_before, profile):
                profile.meta["stored_at"] = str(store.path(profile.name))
        if run.args.display:
            show(profile, view)

    @staticmethod
    def _landed(store: Session, failed_before: int, profile) -> bool:
        try:
            store.flush()
        except KeyboardInterrupt:
            print("cann_nb: interrupted; the profile is still being written in the background",
                  file=sys.stderr)
            return False
        failed = store.write_errors[failed_before:]
        if failed:
            _not_stored(profile, failed[-1])
        return not failed

    def load(self, args):
        from ..errors import CannNbError
        from ..ingest.load import import_into_store, load

        path = os.path.expanduser(args.path.strip().strip("'\""))
        try:
            obj = import_into_store(path, self.store(args.output), args.name) if args.store else load(path)
        except CannNbError as exc:
            raise UsageError(str(exc)) from None
        self.last = obj
        return obj

    def store(self, output=None) -> Session:
        root = os.path.abspath(output or os.environ.get("CANN_NB_DIR") or "profile_results")
        if root not in self._stores:
            self._stores[root] = Session(root)
        return self._stores[root]

    def cell_number(self) -> int:
        """N of the running cell's ``In [N]``. IPython 9 advances ``execution_count`` before it runs a
        cell (8 did it after), so it is read from the running cell's own result."""
        running = getattr(self.shell.displayhook, "exec_result", None)
        number = getattr(running, "execution_count", None)
        return number if number is not None else self.shell.execution_count

    def _raw_cell(self) -> str:
        hist = getattr(self.shell.history_manager, "input_hist_raw", None)
        return hist[-1] if hist else ""


def _not_stored(profile, error: str) -> None:
    """One line: the store's error, that the profile was NOT stored, and where it still is."""
    profile.meta.pop("stored_at", None)
    print(f"{error} -- profile {profile.name!r} was NOT stored; it is still in this session: "
          f"%cann_report without NAME writes its report, __cann_nb__.last is the Profile", file=sys.stderr)


def build_view(profile):
    """The tabbed widget view (None without the front-end bundle). If it cannot be built, its error
    is one line, never a traceback in the user's cell, and None: the static summary still shows."""
    # imported outside the try: a failing import of the package's own code is a bug to see, not a fallback
    from ..widgets import display as views

    try:
        return views.make_view(profile)
    except Exception as exc:  # the view could not be built here: say so in one line
        print(f"cann_nb: interactive view unavailable ({type(exc).__name__}: {exc}); static summary only",
              file=sys.stderr)
        return None


def show(profile, view=None) -> None:
    """Two outputs: the static summary (text/plain + escaped HTML), then ``view``, which hides the
    summary once it renders (widgets/display.py says why they are two)."""
    from ..widgets import display as views

    views.show_parts(profile, view)


_RUNTIMES: dict[int, Runtime] = {}


def load_ipython_extension(ipython) -> None:
    key = id(ipython)
    if key in _RUNTIMES:
        return
    runtime = Runtime(ipython)
    runtime.install()
    _RUNTIMES[key] = runtime


def unload_ipython_extension(ipython) -> None:
    runtime = _RUNTIMES.pop(id(ipython), None)
    if runtime is not None:
        runtime.unload()


def runtime_for(ipython) -> Runtime | None:
    return _RUNTIMES.get(id(ipython))
