#pragma once

struct Request {
    int shape;
};

class RequestQueue {
public:
    bool pop(Request *request);
};
