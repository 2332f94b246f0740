import torch

from corpus.prep import clean_corpus, embed_corpus, embed_small, embed_splits
from corpus.wrong_library import embed_again


def main(path):
    device = "cuda" if torch.cuda.is_available() else "cpu"  # initializes CUDA
    features = embed_corpus(path)
    cleaned = clean_corpus(features, 8)
    return device, embed_splits(cleaned), embed_small(cleaned), embed_again(cleaned)


if __name__ == "__main__":
    main("train.jsonl")
