import torch

from jobs.work import embed_all, tokenize_all


def main(batches, texts):
    print(f"CUDA: {torch.cuda.is_available()}")  # initializes CUDA
    tokens = tokenize_all(texts)
    return tokens, embed_all(batches)


if __name__ == "__main__":
    main([[1.0, 2.0]], ["A b"])
