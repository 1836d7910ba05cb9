/**
 * The only client code: pages read fine without it. It shows times in the reader's time zone
 * (the server renders UTC), opens a folded block when a link points into it, and makes "/"
 * jump to the search box.
 */
export const SCRIPT = `
(() => {
  const pad = (n) => String(n).padStart(2, "0");
  for (const el of document.querySelectorAll("time[datetime]")) {
    const d = new Date(el.getAttribute("datetime"));
    if (Number.isNaN(d.getTime())) continue;
    const date = d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate());
    const clock = pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
    el.textContent = el.dataset.form === "clock" ? clock : date + " " + clock.slice(0, 5);
    el.title = d.toString();
  }
  // A fragment that is not valid percent-encoding ("#100%") is taken as it is: a throw here
  // would stop the script before the "/" key is set up.
  const fragment = () => {
    try { return decodeURIComponent(location.hash.slice(1)); } catch { return location.hash.slice(1); }
  };
  const reveal = () => {
    const target = location.hash && document.getElementById(fragment());
    for (let el = target; el; el = el.parentElement) if (el.tagName === "DETAILS") el.open = true;
    if (target) target.scrollIntoView({ block: "start" });
  };
  addEventListener("hashchange", reveal);
  reveal();
  addEventListener("keydown", (e) => {
    if (e.key !== "/" || e.ctrlKey || e.metaKey || /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement?.tagName ?? "")) return;
    const box = document.querySelector("form.quick input, input[name=q]");
    if (box) { e.preventDefault(); box.focus(); }
  });
})();
`;
