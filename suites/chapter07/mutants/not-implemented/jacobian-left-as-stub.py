# mistake: not-implemented
# file: softmax.py
# mutant: softmax_jacobian still raises NotImplementedError
# (only what differs from the reference; it is appended to the reference's file)

def softmax_jacobian(p: torch.Tensor) -> torch.Tensor:
    raise NotImplementedError("softmax_jacobian: not implemented yet")
