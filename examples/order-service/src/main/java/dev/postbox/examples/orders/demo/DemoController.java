package dev.postbox.examples.orders.demo;

import dev.postbox.examples.orders.inventory.PoisonSku;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.util.Map;

/**
 * The demo's switch for its failure: {@code GET /demo/poison} tells whether SKU-POISON orders still fail,
 * {@code POST /demo/poison/fix} fixes the cause (their events already DEAD stay DEAD until someone retries them).
 */
@RestController
@RequestMapping("/demo/poison")
public class DemoController {

    private final PoisonSku poison;

    public DemoController(PoisonSku poison) {
        this.poison = poison;
    }

    @GetMapping
    public Map<String, Object> status() {
        return Map.of("sku", PoisonSku.SKU, "fixed", poison.fixed());
    }

    @PostMapping("/fix")
    public Map<String, Object> fix() {
        poison.fix();
        return status();
    }
}
