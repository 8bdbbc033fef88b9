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
    codes, uniques = pd.factorize(log["agent"])  # string work once per distinct user agent
    agent = pd.Series(uniques).str.lower()
    family = agent.str.extract(r"(chrome|firefox|safari|edg|opr)/", expand=False).to_numpy()[codes]
    os_name = agent.str.extract(r"\((windows|macintosh|x11|iphone|linux)", expand=False).to_numpy()[codes]
    mobile = agent.str.contains("iphone|android", regex=True).to_numpy()[codes]
    summary = log.assign(family=family, os=os_name, mobile=mobile).groupby(["family", "os", "mobile"])["bytes"]
    table = summary.agg(["count", "sum"]).sort_index()
    return table.to_numpy(dtype=float).ravel()


if __name__ == "__main__":
    result = main()
