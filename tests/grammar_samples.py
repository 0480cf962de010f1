"""A small real-looking document per language served from its grammar alone (server/grammars.py):
each defines a function and (where the language has them) a type, reads two members of a value,
and ends where a member of that value is being typed. Shared by the unit and end-to-end tests."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    language_id: str
    extension: str
    body: str  # ends inside a function, at the start of a new line
    member_line: str  # typed at the end of body: a receiver and its member operator
    function: str  # a function body defines (tags.scm: a function or method)
    members: tuple[str, ...] = ("amount", "customer")  # what member_line's receiver offers
    type: str | None = "Invoice"  # a type body defines, where tags.scm knows types
    keyword: str = "return"  # a keyword that a statement may start with


SAMPLES = {
    "go": Sample("go", ".go", """package billing

import "fmt"

type Invoice struct {
\tamount   int
\tcustomer string
}

func computeTotal(invoice Invoice, rate int) int {
\tfmt.Println(invoice.customer)
\treturn invoice.amount * rate
}

func report(invoice Invoice) {
\ttotal := computeTotal(invoice, 2)
\tfmt.Println(total)
""", "\tinvoice.", "computeTotal"),
    "rust": Sample("rust", ".rs", """use std::fmt;

struct Invoice {
    amount: u32,
    customer: String,
}

fn compute_total(invoice: &Invoice, rate: u32) -> u32 {
    println!("{}", invoice.customer);
    invoice.amount * rate
}

fn report(invoice: &Invoice) {
    let total = compute_total(invoice, 2);
""", "    invoice.", "compute_total"),
    "java": Sample("java", ".java", """package billing;

class Invoice {
    int amount;
    String customer;
}

class Billing {
    static int computeTotal(Invoice invoice, int rate) {
        System.out.println(invoice.customer);
        return invoice.amount * rate;
    }

    static void report(Invoice invoice) {
        int total = computeTotal(invoice, 2);
""", "        invoice.", "computeTotal"),
    "c": Sample("c", ".c", """#include <stdio.h>

struct invoice { int amount; const char *customer; };
typedef struct invoice Invoice;

int compute_total(Invoice *invoice, int rate) {
    printf("%s\\n", invoice->customer);
    return invoice->amount * rate;
}

void report(Invoice *invoice) {
    int total = compute_total(invoice, 2);
""", "    invoice->", "compute_total"),
    "cpp": Sample("cpp", ".cpp", """#include <string>

class Invoice {
public:
    int amount;
    std::string customer;
};

int computeTotal(const Invoice &invoice, int rate) {
    return invoice.amount * rate + invoice.customer.size();
}

void report(Invoice *invoice) {
    int total = computeTotal(*invoice, 2);
""", "    invoice->", "computeTotal"),
    "csharp": Sample("csharp", ".cs", """using System;

class Invoice {
    public int Amount;
    public string Customer;
}

static class Billing {
    static int ComputeTotal(Invoice invoice, int rate) {
        Console.WriteLine(invoice.Customer);
        return invoice.Amount * rate;
    }

    static void Report(Invoice invoice) {
        var total = ComputeTotal(invoice, 2);
""", "        invoice.", "ComputeTotal", members=("Amount", "Customer")),
    "ruby": Sample("ruby", ".rb", """require "json"

class Invoice
  attr_reader :amount, :customer
end

def compute_total(invoice, rate)
  puts invoice.customer
  invoice.amount * rate
end

def report(invoice)
  total = compute_total(invoice, 2)
""", "  invoice.", "compute_total"),
    "php": Sample("php", ".php", """<?php

class Invoice {
    public $amount;
    public $customer;
}

function computeTotal($invoice, $rate) {
    echo $invoice->customer;
    return $invoice->amount * $rate;
}

function report($invoice) {
    $total = computeTotal($invoice, 2);
""", "    $invoice->", "computeTotal"),
    "kotlin": Sample("kotlin", ".kt", """package billing

data class Invoice(val amount: Int, val customer: String)

fun computeTotal(invoice: Invoice, rate: Int): Int {
    println(invoice.customer)
    return invoice.amount * rate
}

fun report(invoice: Invoice) {
    val total = computeTotal(invoice, 2)
""", "    invoice.", "computeTotal", type=None),  # the wheel ships no tags.scm
    "lua": Sample("lua", ".lua", """local Invoice = {}

function compute_total(invoice, rate)
  print(invoice.customer)
  return invoice.amount * rate
end

local function report(invoice)
  local total = compute_total(invoice, 2)
""", "  invoice.", "compute_total", type=None),
    "bash": Sample("shellscript", ".sh", """#!/usr/bin/env bash

compute_total() {
  local amount=$1 rate=$2
  echo $((amount * rate))
}

report() {
  local total
  total=$(compute_total "$invoice_amount" 2)
  echo "$total"
""", "", "compute_total", members=(), type=None, keyword="while"),
}
