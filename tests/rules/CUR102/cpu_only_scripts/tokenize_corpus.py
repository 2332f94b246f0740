import argparse
import multiprocessing

import torch


def encode(line):
    return torch.tensor([ord(c) for c in line.strip()], dtype=torch.int16)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus")
    args = parser.parse_args()
    with open(args.corpus) as corpus, multiprocessing.Pool(16) as pool:  # ok: CUR102
        torch.save(pool.map(encode, corpus, chunksize=256), args.corpus + ".pt")


if __name__ == "__main__":
    main()
