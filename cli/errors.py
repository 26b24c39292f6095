"""One root for every exception rates-xl raises on purpose, and the tree under it.

`rates-xl`'s one-line reporter (cli/cli.py) catches `RatesXlError`: the message of any of
these is written for a person, one line, never the API key, and is printed as it is (exit 2
for a `UsageError`, 1 otherwise). An `Internal` one carries a value out of nested code and is
caught where it is raised; one reaching the reporter is a bug, and reported as one.

Each package defines its own classes beside the code that raises them, under one of the
branches below; `tests/test_layers.py` holds this drawing to the real classes (every public
exception class is drawn under its real parent, every one has this root):

    RatesXlError                      the root (rates_xl.errors)
    ├── CommandError                  a command cannot do what it was asked (exit 1)
    │   └── UsageError                the command line is wrong (exit 2)
    ├── RatesError                    a request the service did not answer as asked (client.errors)
    │   ├── BadRequest                400: the service refused the parameters
    │   ├── AuthError                 403: the key is missing, invalid or not permitted
    │   ├── NotFound                  404: no data for that request
    │   ├── Unprocessable             422: well-formed, not meaningful
    │   ├── RateLimited               429 after every retry
    │   ├── ServerError               5xx after every retry
    │   ├── ServiceUnavailable        no answer: refused, reset, timeout, deadline
    │   │   └── NetworkDown           the circuit breaker is open
    │   ├── InvalidResponse           not JSON, or not the documented shape
    │   │   └── NonFiniteNumber       NaN or infinity in an answer
    │   ├── Redirected                a redirect the client does not follow
    │   ├── NotFetched                planning: not cached yet (never shown)
    │   └── NotInPack                 replay: a request the pack does not hold (client.pack_replay)
    ├── InputError                    given input cannot be read as asked (also a ValueError)
    │   ├── ArgProblem                a value an argument cannot take (functions.args)
    │   ├── ArgumentError             one argument of a worksheet call (functions.messages)
    │   ├── FormulaError              a formula the tokenizer cannot read (functions.tokens)
    │   ├── Unlinked                  a call whose request the formula does not give (functions.link)
    │   ├── PackError                 a market-data pack that cannot be read (client.pack)
    │   ├── Ambiguous                 a URL two parsers read as two places (client.urls)
    │   ├── NotComputed               a formula the engine cannot hold as Excel reads it (calc.formula.site)
    │   │   └── UnknownReference      a table or column the book does not define (calc.formula.tables)
    │   ├── SealRequestRefused        a pack seal request that is not one (addin.officejs.packs)
    │   ├── ScenarioRequestRefused    a scenario the task pane asks for that cannot be applied (addin.officejs.scenarios)
    │   ├── SpecError                 a scenario spec that cannot be read (scenario.spec)
    │   ├── ScenarioError             a scenario that cannot be applied to a pack (scenario.apply)
    │   └── RiskError                 a book whose risk cannot be measured (scenario.risk)
    ├── TaskError                     a task cannot be done here: the message says what to do
    │   ├── CalcError                 a workbook that cannot be calculated (calc.book)
    │   │   └── OverBudget            a book past its budget of cells or seconds (calc.book)
    │   ├── EngineError               an engine cannot load a book (calc.engines)
    │   ├── TemplateBuildError        a template that cannot be built (templates.build)
    │   ├── AddinBuildError           the add-in cannot be built (addin.classic.build_sources)
    │   ├── InstallError              the add-in cannot be installed (addin.classic.install)
    │   ├── VbaSourceError            xlwings' VBA is not as the patches expect (addin.classic.vba)
    │   ├── VbaStructureError         a VBA module the pruner cannot read (addin.classic.vbaprune)
    │   ├── WrapError                 xlwings' wrappers are not as expected (addin.classic.rtd_vba)
    │   ├── DialogUnavailable         no dialog in this Python (addin.classic.ribbon_context)
    │   ├── KeychainError             the keychain cannot be used (client.api_key)
    │   ├── RespellError              a workbook that cannot be respelled (addin.respell)
    │   ├── UsersError                a team user command that cannot be done (addin.officejs.users)
    │   └── ProviderError             the identity provider's keys cannot be fetched (addin.officejs.jwks)
    ├── Refusal                       a server of ours refuses a request (its HTTP status)
    │   ├── SignInRefused             no acceptable sign-in: 401 (addin.officejs.auth)
    │   ├── KeysUnavailable           no key to check a sign-in with: 503 (addin.officejs.jwks)
    │   ├── Busy                      every batch worker busy, the queue full: 503 (addin.officejs.limits)
    │   ├── UserBusy                  this user's queue is full: 429 (addin.officejs.fairness)
    │   ├── NoSuchSession             a Live session that is not the user's: 404 (addin.officejs.live_hub)
    │   └── ServiceError              the sandbox's answer other than 200 (sandbox.errors)
    └── Internal                      carries a value out of nested code; caught where raised
        ├── ExcelError                an Excel error value a function answers (calc.xlfuncs.coercion)
        ├── GivenError                an error given to a securities function, passed on (calc.xlfuncs.financial.bondprice)
        ├── NotFollowed               a value a formula walk cannot compute (functions.formula_walk)
        ├── TextBomb                  a book whose cells show text past the limit (calc.stored_cells)
        └── NotModelled               what the local model cannot move, and why (scenario.model)

(`Internal` also has private subclasses, one per module that needs one: calc's readers and
Excel functions, the Office.js server's body limits.)

Ours and nothing else: a library's exception (OSError, pydantic's ValidationError) is caught
where it happens and said as one of these, or reaches the reporter as the bug it is.
"""

from __future__ import annotations


class RatesXlError(Exception):
    """The root of every exception rates-xl raises on purpose (see the tree above)."""


class CommandError(RatesXlError):
    """A failure the user can fix; its message is printed as is (exit 1)."""


class UsageError(CommandError):
    """The command was given wrong arguments; its message is printed as is (exit 2)."""


class InputError(RatesXlError, ValueError):
    """Input (a cell's argument, a formula, a pack, a URL, a scenario) that cannot be read as
    asked; the message names what. A ValueError too, as each of these was before the tree."""


class TaskError(RatesXlError):
    """A task (a build, an install, a calculation, a keychain write) that cannot be done
    here; the message says why and what to do."""


class Refusal(RatesXlError):
    """A server of ours (the Office.js server, the sandbox) refuses a request; the server
    answers it with an HTTP status and the message."""


class Internal(RatesXlError):
    """Carries a value out of nested code, caught in the module that raises it; one that
    reaches the command line's reporter is a bug."""
