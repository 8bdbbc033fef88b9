import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

rng = np.random.default_rng(0)

N_STATIONS = 12000
N_PINGS = 6000


def load_stations(n=N_STATIONS):
    xy = rng.uniform(0, 500_000, (n, 2))
    return pd.DataFrame({"station": np.arange(n), "x": xy[:, 0], "y": xy[:, 1],
                         "temp": rng.normal(12.0, 6.0, n)})


def load_pings(n=N_PINGS):
    track = np.cumsum(rng.normal(0, 800, (n, 2)), axis=0) + 250_000
    return pd.DataFrame({"vehicle": rng.integers(0, 50, n), "x": track[:, 0], "y": track[:, 1]})


def nearest_station(pings, stations):
    tree = cKDTree(stations[["x", "y"]].to_numpy())
    dist, idx = tree.query(pings[["x", "y"]].to_numpy())
    return idx, dist


def enrich(pings, stations):
    idx, dist = nearest_station(pings, stations)
    out = pings.copy()
    out["station"] = stations["station"].to_numpy()[idx]
    out["dist_m"] = dist
    out["temp"] = stations["temp"].to_numpy()[idx]
    return out


def main():
    stations = load_stations()
    pings = load_pings()
    enriched = enrich(pings, stations)
    per_vehicle = enriched.groupby("vehicle").agg(temp=("temp", "mean"), dist=("dist_m", "max"))
    return np.concatenate([enriched[["station", "dist_m"]].to_numpy().ravel(), per_vehicle.to_numpy().ravel()])


if __name__ == "__main__":
    result = main()
