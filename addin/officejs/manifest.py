"""The XML add-in-only manifest: where Excel finds our page, script and metadata.

The XML form works on every platform that has custom functions (the unified JSON manifest
does not support them). It declares a TaskPaneApp for Workbook with:
- a `CustomFunctions` extension point (script, page, metadata, namespace RATES);
- a shared runtime (`<Runtimes>`, lifetime long): one browser engine on every platform,
  without the JavaScript-only runtime's fetch limits and localhost quirks;
- the task pane (Live, sign-in, the market-data pack) on that same runtime: a ribbon button
  on the Home tab whose ShowTaskpane action names a `TaskpaneId` and the runtime's page.
  Microsoft, "Configure your Office Add-in to use a shared runtime"
  (learn.microsoft.com/office/dev/add-ins/develop/configure-your-add-in-to-use-a-shared-runtime):
  the task pane's SourceLocation must be the Runtime's resid, with a TaskpaneId, or the pane
  is a different task pane in a runtime of its own, where Live and sign-in would not reach the
  functions' state;
- the requirement sets SharedRuntime 1.1 and CustomFunctionsRuntime 1.2 (1.2 adds
  `CustomFunctions.Error`, whose message Excel shows on hover: Microsoft's "Custom Functions
  requirement sets"), so an Excel that cannot run it does not offer it.

`render(base_url)` fills in the URLs (all under /v/<version>/, so an update is a new URL and
Office's cache of the old files does not matter). `check(xml)` verifies what can be verified
offline: well-formed, every required element in the order the schema wants, every resid
defined, every URL HTTPS under the base URL, the task pane on the shared runtime.
tests/addin/officejs/test_manifest_schema.py validates the manifest against Microsoft's
XSDs as well (tests/addin/officejs/schemas/, with xmlschema).
"""

from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ET
from typing import Any
from uuid import UUID
from xml.sax.saxutils import escape, quoteattr

from rates_xl import __version__

#: The task pane's id on the shared runtime (ShowTaskpane's TaskpaneId).
TASKPANE_ID = "Rates.Taskpane"
#: The requirement sets Excel must support to offer the add-in.
REQUIRED_SETS = {"SharedRuntime": "1.1", "CustomFunctionsRuntime": "1.2"}
#: The add-in's identity: fixed forever (Excel keys sideloads and its caches on it).
ADDIN_ID = "7cf36b20-da05-4baf-8233-0e4ef55bb99a"
DISPLAY_NAME = "rates-xl"
PROVIDER = "rates-xl"
NS = {
    "o": "http://schemas.microsoft.com/office/appforoffice/1.1",
    "bt": "http://schemas.microsoft.com/office/officeappbasictypes/1.0",
    "ov": "http://schemas.microsoft.com/office/taskpaneappversionoverrides",
    "xsi": "http://www.w3.org/2001/XMLSchema-instance",
}
ICON_SIZES = (16, 32, 64, 80)


def manifest_version(version: str = __version__) -> str:
    """The manifest's Version must be n.n.n.n."""
    parts = [p for p in version.split(".") if p.isdigit()][:4]
    return ".".join(parts + ["0"] * (4 - len(parts)))


def asset_version() -> str:
    """The path segment of every versioned URL: the package version plus a digest of what
    the files are made of (the script, the page, the table's metadata), so a change in any
    of them is a new URL even within one release."""
    from rates_xl.addin.officejs import assets

    digest = hashlib.sha256()
    for part in (assets.SCRIPT_SOURCE, assets.PAGE_SOURCE, assets.metadata_bytes()):
        digest.update(part if isinstance(part, bytes) else part.encode())
    return f"{__version__}-{digest.hexdigest()[:10]}"


def urls(base_url: str, version: str | None = None) -> dict[str, str]:
    base = base_url.rstrip("/")
    root = f"{base}/v/{version or asset_version()}"
    out = {
        "page": f"{root}/functions.html",
        "script": f"{root}/functions.js",
        "metadata": f"{root}/functions.json",
        "support": f"{base}/",
    }
    for size in ICON_SIZES:
        out[f"icon{size}"] = f"{root}/icon-{size}.png"
    return out


def render(base_url: str, version: str | None = None, sso: Any = None) -> str:
    """The manifest for a server at `base_url` (e.g. https://localhost:8766).

    `sso` (a team.SsoManifest): the add-in's registration at the company's identity provider,
    written as WebApplicationInfo so `Office.auth.getAccessToken` can sign the user in."""
    u = {k: quoteattr(v) for k, v in urls(base_url, version).items()}
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<OfficeApp xmlns="{NS['o']}" xmlns:bt="{NS['bt']}" xmlns:ov="{NS['ov']}" xmlns:xsi="{NS['xsi']}" xsi:type="TaskPaneApp">
  <Id>{ADDIN_ID}</Id>
  <Version>{manifest_version()}</Version>
  <ProviderName>{PROVIDER}</ProviderName>
  <DefaultLocale>en-US</DefaultLocale>
  <DisplayName DefaultValue="{DISPLAY_NAME}"/>
  <Description DefaultValue="Interest-rate market data in worksheet formulas: RATES.SWAP, RATES.SWAPCURVE and more."/>
  <IconUrl DefaultValue={u['icon32']}/>
  <HighResolutionIconUrl DefaultValue={u['icon64']}/>
  <SupportUrl DefaultValue={u['support']}/>
  <Hosts>
    <Host Name="Workbook"/>
  </Hosts>
  <Requirements>
    <Sets DefaultMinVersion="1.1">
      <Set Name="SharedRuntime" MinVersion="1.1"/>
      <Set Name="CustomFunctionsRuntime" MinVersion="1.2"/>
    </Sets>
  </Requirements>
  <DefaultSettings>
    <SourceLocation DefaultValue={u['page']}/>
  </DefaultSettings>
  <Permissions>ReadWriteDocument</Permissions>
  <VersionOverrides xmlns="{NS['ov']}" xsi:type="VersionOverridesV1_0">
    <Hosts>
      <Host xsi:type="Workbook">
        <Runtimes>
          <Runtime resid="Rates.Page.Url" lifetime="long"/>
        </Runtimes>
        <AllFormFactors>
          <ExtensionPoint xsi:type="CustomFunctions">
            <Script>
              <SourceLocation resid="Rates.Script.Url"/>
            </Script>
            <Page>
              <SourceLocation resid="Rates.Page.Url"/>
            </Page>
            <Metadata>
              <SourceLocation resid="Rates.Metadata.Url"/>
            </Metadata>
            <Namespace resid="Rates.Namespace"/>
          </ExtensionPoint>
        </AllFormFactors>
        <DesktopFormFactor>
          <FunctionFile resid="Rates.Page.Url"/>
          <ExtensionPoint xsi:type="PrimaryCommandSurface">
            <OfficeTab id="TabHome">
              <Group id="Rates.Group">
                <Label resid="Rates.Group.Label"/>
                <Icon>
                  <bt:Image size="16" resid="Rates.Icon16"/>
                  <bt:Image size="32" resid="Rates.Icon32"/>
                  <bt:Image size="80" resid="Rates.Icon80"/>
                </Icon>
                <Control xsi:type="Button" id="Rates.TaskpaneButton">
                  <Label resid="Rates.Taskpane.Label"/>
                  <Supertip>
                    <Title resid="Rates.Taskpane.Label"/>
                    <Description resid="Rates.Taskpane.Tip"/>
                  </Supertip>
                  <Icon>
                    <bt:Image size="16" resid="Rates.Icon16"/>
                    <bt:Image size="32" resid="Rates.Icon32"/>
                    <bt:Image size="80" resid="Rates.Icon80"/>
                  </Icon>
                  <Action xsi:type="ShowTaskpane">
                    <TaskpaneId>{TASKPANE_ID}</TaskpaneId>
                    <SourceLocation resid="Rates.Page.Url"/>
                  </Action>
                </Control>
              </Group>
            </OfficeTab>
          </ExtensionPoint>
        </DesktopFormFactor>
      </Host>
    </Hosts>
    <Resources>
      <bt:Images>
{chr(10).join(f'        <bt:Image id="Rates.Icon{s}" DefaultValue={u[f"icon{s}"]}/>' for s in ICON_SIZES)}
      </bt:Images>
      <bt:Urls>
        <bt:Url id="Rates.Page.Url" DefaultValue={u['page']}/>
        <bt:Url id="Rates.Script.Url" DefaultValue={u['script']}/>
        <bt:Url id="Rates.Metadata.Url" DefaultValue={u['metadata']}/>
      </bt:Urls>
      <bt:ShortStrings>
        <bt:String id="Rates.Namespace" DefaultValue="RATES"/>
        <bt:String id="Rates.Group.Label" DefaultValue="Rates"/>
        <bt:String id="Rates.Taskpane.Label" DefaultValue="Rates pane"/>
      </bt:ShortStrings>
      <bt:LongStrings>
        <bt:String id="Rates.Taskpane.Tip" DefaultValue="Live mode, sign-in, the market-data pack and the last error of the RATES functions, in the functions' own runtime."/>
      </bt:LongStrings>
    </Resources>{web_application_info(sso)}
  </VersionOverrides>
</OfficeApp>
"""


def web_application_info(sso: Any) -> str:
    """<WebApplicationInfo>: Id, Resource, Scopes, in the schema's order; the last child of
    VersionOverrides (after Resources), as the taskpane schema wants it."""
    if sso is None:
        return ""
    scopes = "".join(f"\n        <Scope>{escape(s)}</Scope>" for s in sso.scopes)
    return (f"\n    <WebApplicationInfo>\n      <Id>{escape(sso.client_id)}</Id>\n"
            f"      <Resource>{escape(sso.resource)}</Resource>\n      <Scopes>{scopes}\n      </Scopes>\n"
            f"    </WebApplicationInfo>")


# -- offline checks -----------------------------------------------------------------------------

#: The OfficeApp children a TaskPaneApp needs, in the schema's order (optional ones left out).
_ORDER = ["Id", "Version", "ProviderName", "DefaultLocale", "DisplayName", "Description", "IconUrl",
          "HighResolutionIconUrl", "SupportUrl", "Hosts", "Requirements", "DefaultSettings",
          "Permissions", "VersionOverrides"]


def check(xml: str, base_url: str | None = None) -> list[str]:
    """Problems an offline reader can find ([] when none)."""
    try:
        root = ET.fromstring(xml.encode())
    except ET.ParseError as exc:
        return [f"not well-formed XML: {exc}"]
    problems: list[str] = []
    o, ov, bt, xsi = (f"{{{NS[k]}}}" for k in ("o", "ov", "bt", "xsi"))
    if root.tag != f"{o}OfficeApp" or root.get(f"{xsi}type") != "TaskPaneApp":
        problems.append("root must be an OfficeApp of xsi:type TaskPaneApp")
    children = [c.tag.split("}")[-1] for c in root]
    present = [t for t in children if t in _ORDER]
    missing = [t for t in _ORDER if t not in children]
    if missing:
        problems.append(f"missing elements: {missing}")
    if present != [t for t in _ORDER if t in present]:
        problems.append(f"elements out of the schema's order: {children}")
    sets = {s.get("Name"): s.get("MinVersion") for s in root.iter(f"{o}Set")}
    for name, version in REQUIRED_SETS.items():
        if sets.get(name) != version:
            problems.append(f"requirement set {name} {version} missing")
    hosts = [h.get("Name") for h in root.iter(f"{o}Host")]
    if hosts != ["Workbook"]:
        problems.append(f"Hosts must be Workbook only, not {hosts}")
    overrides = root.find(f"{ov}VersionOverrides")
    if overrides is None:
        return problems + ["no VersionOverrides"]
    ids = {e.get("id"): e.get("DefaultValue") for e in overrides.iter()
           if e.tag in (f"{bt}Url", f"{bt}String", f"{bt}Image")}
    referenced = [e.get("resid") for e in overrides.iter() if e.get("resid")]
    for resid in referenced:
        if resid not in ids:
            problems.append(f"resid {resid!r} is not defined in Resources")
        elif len(resid) > 32:
            problems.append(f"resid {resid!r} is longer than 32 characters")
    points = [e for e in overrides.iter(f"{ov}ExtensionPoint") if e.get(f"{xsi}type") == "CustomFunctions"]
    if len(points) != 1:
        problems.append("exactly one CustomFunctions extension point is needed")
    else:
        for part in ("Script", "Page", "Metadata"):
            if points[0].find(f"{ov}{part}/{ov}SourceLocation") is None:
                problems.append(f"CustomFunctions has no {part}/SourceLocation")
        namespace = points[0].find(f"{ov}Namespace")
        if namespace is None or ids.get(namespace.get("resid")) != "RATES":
            problems.append("the CustomFunctions namespace must be RATES")
        page = points[0].find(f"{ov}Page/{ov}SourceLocation")
        runtimes = [r for r in overrides.iter(f"{ov}Runtime")]
        if not runtimes or runtimes[0].get("lifetime") != "long":
            problems.append("a shared runtime needs <Runtime lifetime=\"long\">")
        elif page is not None and runtimes[0].get("resid") != page.get("resid"):
            problems.append("the shared runtime must be the custom functions' page")
        else:
            problems += _check_taskpane(overrides, runtimes[0].get("resid"))
    problems += _check_sso(overrides)
    urls_found = [v for k, v in ids.items() if v and v.startswith(("http://", "https://"))]
    urls_found += [e.get("DefaultValue") for e in root if e.tag in (f"{o}IconUrl", f"{o}HighResolutionIconUrl", f"{o}SupportUrl")]
    urls_found += [e.get("DefaultValue") for e in root.iter(f"{o}SourceLocation")]
    for url in urls_found:
        if not str(url).startswith("https://"):
            problems.append(f"{url} is not HTTPS (Office loads add-in files over HTTPS only)")
        elif base_url and not str(url).startswith(base_url.rstrip("/") + "/"):
            problems.append(f"{url} is not under {base_url}")
    return problems


def _check_taskpane(overrides: ET.Element, runtime: str | None) -> list[str]:
    """A ribbon button opens the task pane on the shared runtime: ShowTaskpane with a
    TaskpaneId and the Runtime's resid as its SourceLocation (and the FunctionFile too)."""
    ov, xsi = f"{{{NS['ov']}}}", f"{{{NS['xsi']}}}"
    actions = [a for a in overrides.iter(f"{ov}Action") if a.get(f"{xsi}type") == "ShowTaskpane"]
    if not actions:
        return ["no ribbon button opens the task pane (Action ShowTaskpane)"]
    problems = []
    for action in actions:
        if not (action.findtext(f"{ov}TaskpaneId") or "").strip():
            problems.append("the task pane's ShowTaskpane has no TaskpaneId: it would be a different "
                            "task pane, outside the shared runtime")
        source = action.find(f"{ov}SourceLocation")
        if source is None or source.get("resid") != runtime:
            problems.append("the task pane's SourceLocation must be the shared runtime's page")
    for function_file in overrides.iter(f"{ov}FunctionFile"):
        if function_file.get("resid") != runtime:
            problems.append("the FunctionFile must be the shared runtime's page")
    return problems


def _check_sso(overrides: ET.Element) -> list[str]:
    """WebApplicationInfo, when present: last child, Id a UUID, Resource api://, a scope."""
    ov = f"{{{NS['ov']}}}"
    info = overrides.find(f"{ov}WebApplicationInfo")
    if info is None:
        return []
    problems = []
    if list(overrides)[-1] is not info:
        problems.append("WebApplicationInfo must be the last child of VersionOverrides")
    if [c.tag.removeprefix(ov) for c in info] != ["Id", "Resource", "Scopes"]:
        problems.append("WebApplicationInfo must hold Id, Resource, Scopes, in that order")
        return problems
    try:
        UUID(info.findtext(f"{ov}Id") or "")
    except ValueError:
        problems.append("WebApplicationInfo's Id must be the application (client) id, a UUID")
    if not (info.findtext(f"{ov}Resource") or "").startswith("api://"):
        problems.append("WebApplicationInfo's Resource must be the Application ID URI (api://...)")
    if not [s for s in info.iter(f"{ov}Scope") if (s.text or "").strip()]:
        problems.append("WebApplicationInfo needs at least one Scope")
    return problems
