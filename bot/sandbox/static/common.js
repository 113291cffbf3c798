/* What both views of the sandbox page share: talking to the sandbox, and saying what went wrong.
 *
 * Every call to /sandbox/... carries this start's token (the server writes it into the page's
 * <meta name="sandbox-token">); the live feeds take it as ?token= (an EventSource sends no
 * headers). A failed call becomes a SandboxError whose `kind` says what happened:
 *   offline  the sandbox did not answer (stopped, or the network is down)
 *   stale    the sandbox restarted since this page was loaded (its token changed): reload
 *   http     the sandbox answered with an error (`message` is its sentence, `status` the code)
 * `explain(err, zh)` turns one into a sentence in the viewer's language.
 */
"use strict";

(function () {
  const meta = document.querySelector('meta[name="sandbox-token"]');
  const TOKEN = meta ? meta.getAttribute("content") || "" : "";
  const TOKEN_HEADER = "X-Sandbox-Token";

  class SandboxError extends Error {
    constructor(kind, message, status) {
      super(message || kind);
      this.name = "SandboxError";
      this.kind = kind;
      this.status = status || 0;
    }
  }

  async function request(url, init) {
    const headers = Object.assign({}, init.headers || {}, { [TOKEN_HEADER]: TOKEN });
    let resp;
    try {
      resp = await fetch(url, Object.assign({}, init, { headers, cache: "no-store" }));
    } catch (_) {
      throw new SandboxError("offline");
    }
    let data = null;
    try {
      data = await resp.json();
    } catch (_) {
      data = null;
    }
    if (!resp.ok) {
      if (data && data.code === "bad_token") throw new SandboxError("stale", data.error, resp.status);
      if (resp.status >= 502 && resp.status <= 504 && !data) throw new SandboxError("offline", "", resp.status);
      throw new SandboxError("http", data && data.error, resp.status);
    }
    return data;
  }

  function getJSON(url) {
    return request(url, { method: "GET" });
  }

  function post(url, body) {
    return request(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  }

  /** A live feed: `hello`, then `message(record)` per change; `down()` when it drops, `stale()`
   * when the sandbox restarted (this page's token is refused); otherwise it keeps retrying. */
  function events(path, handlers) {
    let source = null;
    let timer = null;
    const open = () => {
      timer = null;
      source = new EventSource(path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(TOKEN));
      source.addEventListener("hello", (e) => handlers.hello(e));
      source.onmessage = (e) => {
        let record;
        try {
          record = JSON.parse(e.data);
        } catch (_) {
          return;
        }
        handlers.message(record);
      };
      source.onerror = async () => {
        handlers.down();
        if (source.readyState !== EventSource.CLOSED) return; // the browser reconnects by itself
        // Refused (a restart changed the token) or gone: find out which, then try again.
        try {
          await getJSON("/sandbox/info");
        } catch (err) {
          if (err.kind === "stale") {
            handlers.stale();
            return;
          }
        }
        if (!timer) timer = setTimeout(open, 2000);
      };
    };
    open();
    return { close: () => source && source.close() };
  }

  /** POST a message; {res, error}: error is null when it went, else the sentence saying why not
   * (a stale page also calls onStale). */
  async function sendMessage(url, body, zh, onStale) {
    try {
      const res = await post(url, body);
      const error = res && res.status && res.status !== 200 ? say("bot", zh, { status: res.status }) : null;
      return { res, error };
    } catch (err) {
      if (err.kind === "stale") onStale();
      return { res: null, error: explain(err, zh) };
    }
  }

  /** A composer: Enter sends (Shift+Enter: new line), once even if pressed twice; a failure
   * is said under it (its .send-error) and the text stays. send(text) → null or the sentence. */
  function composer(form, area, send, opts) {
    const maxHeight = (opts && opts.maxHeight) || 200;
    const changed = (opts && opts.changed) || (() => {});
    const error = form.querySelector(".send-error");
    const autosize = () => {
      area.style.height = "auto";
      area.style.height = Math.min(area.scrollHeight, maxHeight) + "px";
    };
    let sending = false;
    const submit = async () => {
      const text = area.value;
      if (!text.trim() || sending) return;
      sending = true;
      form.classList.add("sending");
      error.hidden = true;
      area.value = "";
      autosize();
      changed();
      const failed = await send(text);
      sending = false;
      form.classList.remove("sending");
      if (failed) {
        if (!area.value) area.value = text; // keep what they wrote, to send again
        autosize();
        error.textContent = failed;
        error.hidden = false;
      }
    };
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      submit();
    });
    area.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        submit();
      }
    });
    area.addEventListener("input", () => {
      error.hidden = true;
      autosize();
      changed();
    });
  }

  /** The person's time zone for dates and times (their client's setting), when the browser knows it. */
  function zoneOf(person) {
    const zone = person && person.timezone;
    if (!zone) return undefined;
    try {
      new Intl.DateTimeFormat("en", { timeZone: zone });
      return zone;
    } catch (_) {
      return undefined;
    }
  }

  /** "YYYY-MM-DD" of a Date in a time zone (undefined: the browser's). */
  function isoDayIn(date, timeZone) {
    return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(date);
  }

  /** "YYYY-MM-DD" of the sandbox's today in a time zone: the product's clock (info.now, the
   * instant message times come from too), never the browser's, so the top bar and the
   * messages agree on what day it is. */
  function todayIn(info, timeZone) {
    return isoDayIn(new Date(info.now * 1000), timeZone);
  }

  /** The day before an ISO day. */
  function dayBefore(isoDay) {
    return new Date(Date.parse(isoDay + "T12:00:00Z") - 86400000).toISOString().slice(0, 10);
  }

  const SAY = {
    offline: [
      "Can't reach the sandbox — is approvals-bot sandbox still running? Nothing was sent.",
      "无法连接沙盒：approvals-bot sandbox 还在运行吗？没有发出任何内容。",
    ],
    stale: ["The sandbox has restarted: reload this page.", "沙盒已重新启动，请刷新此页面。"],
    http: ["The sandbox answered HTTP {status}.", "沙盒返回了 HTTP {status}。"],
    bot: ["The bot answered HTTP {status}.", "机器人返回了 HTTP {status}。"],
    reconnecting: ["Can't reach the sandbox — reconnecting…", "无法连接沙盒，正在重新连接…"],
  };

  /** A sentence for a failure, in the viewer's language. */
  function explain(err, zh) {
    const kind = err && SAY[err.kind] ? err.kind : "offline";
    if (kind === "http" && err.message && err.message !== "http") return err.message;
    return say(kind, zh, { status: err && err.status });
  }

  function say(key, zh, vars) {
    const text = SAY[key][zh ? 1 : 0];
    return text.replace(/\{(\w+)\}/g, (_, k) => String((vars || {})[k] ?? ""));
  }

  /** A person's job title and team in the viewer's language, as the directory has them
   * (/sandbox/people gives both languages: the server chose each, the page only picks one). */
  function titleOf(p, zh) {
    return (p.titles || {})[zh ? "zh" : "en"] || p.title;
  }

  function teamOf(p, zh) {
    return (p.teams || {})[zh ? "zh" : "en"] || p.team;
  }

  window.SandboxCommon = { getJSON, post, events, explain, say, sendMessage, composer, zoneOf, isoDayIn, todayIn, dayBefore, titleOf, teamOf, SandboxError, TOKEN_HEADER };
})();
