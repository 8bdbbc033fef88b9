"""Summarises a web access log held in a pandas DataFrame: browser family and OS pulled out of the
user-agent strings with .str methods and a regex, then request counts and bytes per family and OS
(StackOverflow and pandas-dev issues: ".str.extract on millions of rows is slow"; the answers note that the
column holds few distinct strings and do the string work once per distinct value).

Every string operation runs row by row on 600 000 rows, though the column has 120 distinct values."""
PLANTED = ("redundant", "hotspot", "host_bound")
TOL = 1e-9
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
ROWS = 600_000
BROWSERS = ["Chrome/124.0.6367.91", "Firefox/125.0", "Safari/605.1.15", "Edg/124.0.2478.67", "OPR/109.0.0.0"]
SYSTEMS = ["Windows NT 10.0; Win64; x64", "Macintosh; Intel Mac OS X 10_15_7", "X11; Linux x86_64",
           "iPhone; CPU iPhone OS 17_4 like Mac OS X", "Linux; Android 14; Pixel 8", "Windows NT 6.1"]
AGENTS = [f"Mozilla/5.0 ({s}) AppleWebKit/537.36 (KHTML, like Gecko) {b} build/{i}"
          for s in SYSTEMS for b in BROWSERS for i in range(4)]

log = pd.DataFrame({
    "agent": np.array(AGENTS, dtype=object)[rng.integers(0, len(AGENTS), ROWS)],
    "bytes": rng.integers(200, 50_000, ROWS),
})


def main():
    agent = log["agent"].str.lower()
    family = agent.str.extract(r"(chrome|firefox|safari|edg|opr)/", expand=False)
    os_name = agent.str.extract(r"\((windows|macintosh|x11|iphone|linux)", expand=False)
    mobile = agent.str.contains("iphone|android", regex=True)
    summary = log.assign(family=family, os=os_name, mobile=mobile).groupby(["family", "os", "mobile"])["bytes"]
    table = summary.agg(["count", "sum"]).sort_index()
    return table.to_numpy(dtype=float).ravel()


if __name__ == "__main__":
    result = main()
